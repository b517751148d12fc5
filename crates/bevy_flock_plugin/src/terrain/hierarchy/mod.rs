//! Hierarchical path-finding across a big terrain (HPA*, Botea, Müller and Schaeffer 2004): the
//! map is cut into square clusters; where two clusters' border tiles are walkable on both sides,
//! transition tiles join them; a search runs over the transitions, with the costs of the ways
//! between them within each cluster, and the way it finds is then laid tile by tile, each leg
//! by an exact search inside one cluster. Clusters are worked out as searches first reach them,
//! and worked out again where tiles change.

mod cluster;
mod clusters;
mod local;
mod search;
#[cfg(test)]
mod tests;

pub(super) use clusters::{HIERARCHICAL_ABOVE, Hierarchy};
pub(super) use search::HierarchicalSearch;
