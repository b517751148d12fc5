//! The neighbours each agent avoids: the nearest, as the force pass kept them or found anew.

use glam::Vec3;

use crate::neighbours::nearest::NearestKeys;
use crate::neighbours::{Images, image_ranges, scan_budget, seam_images};
use crate::tuning::Prepared;

use super::context::{Near, Scratch, VelocityInputs};
use super::shares::avoids;

impl VelocityInputs<'_> {
    /// Fills `scratch.near` with the agent in `slot`'s nearest neighbours within its neighbour
    /// radius (across wrap seams too) that it avoids (only those in its mask's layers, when
    /// `layered`), at most [`MOST_AGENTS_AVOIDED`], nearest first and ties by slot, so that the
    /// order never depends on the scan's: as the force pass kept them, where it did.
    pub(super) fn nearest_neighbours(
        &self,
        slot: usize,
        prepared: &Prepared,
        layered: bool,
        scratch: &mut Scratch,
    ) {
        let position = self.index.gathered[slot].body.position;
        let images = seam_images(position, prepared, self.space);
        let kept = match self.forces.nearest.get(slot) {
            Some(&Some(kept)) if self.forces.pending => kept,
            _ => self.scan_nearest(slot, position, &images, prepared, layered, scratch),
        };
        // The offsets again, with the scan's arithmetic: across the one image of the box
        // that brings the neighbour within the radius (two images of one neighbour are more
        // than two radii apart, so never both within it).
        let (lanes, radius_sq) = (&self.index.lanes, prepared.neighbour_radius_sq);
        let near = &mut scratch.near;
        near.clear();
        for other in kept.slots() {
            // Near no seam, the one image is the agent itself, which brings each within it.
            let offset = if images.only_zero() {
                lanes.position(other) - position
            } else {
                images
                    .iter()
                    .map(|shift| lanes.position(other) - (position + shift))
                    .find(|offset| offset.length_squared() <= radius_sq)
                    .unwrap_or_default()
            };
            near.push(Near {
                slot: other,
                offset: self.space.flat(offset),
            });
        }
    }

    /// The nearest neighbours that [`nearest_neighbours`](Self::nearest_neighbours) takes, by
    /// a scan of their own round the agent in `slot` at `position` and its seam `images`: of
    /// the candidates within the neighbour radius, as many as the force pass's scan budget
    /// for the agent's neighbour cap allows, so that in a clump no agent scans everyone.
    pub(super) fn scan_nearest(
        &self,
        slot: usize,
        position: Vec3,
        images: &Images,
        prepared: &Prepared,
        layered: bool,
        scratch: &mut Scratch,
    ) -> NearestKeys {
        let grid = &self.index.grid;
        let Scratch {
            stencil_cell,
            stencil,
            seam_stencil,
            ..
        } = scratch;
        let cell = grid.cell_of(position);
        if *stencil_cell != Some(cell) {
            grid.stencil(cell, self.space, stencil);
            *stencil_cell = Some(cell);
        }
        let radius_sq = prepared.neighbour_radius_sq;
        let perception = &prepared.params.perception;
        let mut nearest = NearestKeys::default();
        let mut budget =
            (perception.max_neighbours).map_or(usize::MAX, |k| scan_budget(k as usize));
        for shift in images.iter() {
            if budget == 0 {
                break;
            }
            let centre = position + shift;
            let ranges = image_ranges(self.index, self.space, centre, shift, stencil, seam_stencil);
            let own = if shift == Vec3::ZERO {
                slot
            } else {
                usize::MAX
            };
            let lanes = &self.index.lanes;
            let wanted = (&mut nearest, &mut budget);
            lanes.offer_nearest(ranges, centre, own, radius_sq, wanted, |other| {
                !layered || {
                    let theirs = &self.params[lanes.params(other) as usize];
                    avoids(perception, &theirs.params.perception)
                }
            });
        }
        nearest
    }
}
