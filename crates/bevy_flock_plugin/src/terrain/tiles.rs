//! The tile grid alone: which tiles are walkable. The searches read only this.

use bevy::prelude::*;

/// Which tiles of a `size` grid are walkable, row by row from the lowest.
#[derive(Reflect, Clone, Debug, PartialEq)]
pub(super) struct Tiles {
    pub(super) size: UVec2,
    pub(super) walkable: Vec<bool>,
}

impl Tiles {
    /// Where `tile` is in [`walkable`](Self::walkable), if it is on the grid.
    pub(super) fn index(&self, tile: UVec2) -> Option<usize> {
        tile.cmplt(self.size)
            .all()
            .then(|| tile.x as usize + tile.y as usize * self.size.x as usize)
    }
    /// Whether `tile` is on the grid and walkable.
    pub(super) fn is_walkable(&self, tile: UVec2) -> bool {
        self.index(tile).is_some_and(|i| self.walkable[i])
    }
}
