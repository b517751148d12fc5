//! Neighbour lookup: the grid, the agents copied into its cell order, and the scan that finds
//! each agent's neighbours and sums what the flocking rules need of them.
//!
//! The scan has two ways: eight candidates at a time on SIMD lanes ([`lanes`]), which answers
//! nearly every agent, and an exact one, which answers the rest (a neighbour on top of the
//! agent, more flocks than the lanes' keys tell apart). Both take in the same neighbours, the
//! nearest where more than the cap are in range (`cut`), and give the same [`Scan`] but
//! for the order of its sums.

mod cut;
pub(crate) mod grid;
mod index;
pub(crate) mod lanes;
pub(crate) mod nearest;
mod neighbourhood;
pub(crate) mod scan;
mod seams;
mod slot_lanes;

pub(crate) use index::NeighbourIndex;
pub(crate) use neighbourhood::{Neighbourhood, ScanBuffers, scan_budget};
pub(crate) use scan::Scan;
pub(crate) use seams::{Images, image_ranges, seam_images};
