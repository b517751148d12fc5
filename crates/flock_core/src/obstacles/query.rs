//! [`ObstacleQuery`]: what avoidance and integration ask of a set of obstacles.

use glam::Vec3;

/// Where a cast first touched an obstacle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CastHit {
    /// How far the cast travelled before touching.
    pub distance: f32,
    /// Unit normal of the surface touched, pointing out of the obstacle.
    pub normal: Vec3,
}

/// What obstacle avoidance and integration ask of a set of obstacles: a ball cast ahead, and a
/// move that never ends inside one. [`ObstacleSet`](crate::ObstacleSet) implements it for built-in shapes; physics
/// backends implement it over their colliders.
pub trait ObstacleQuery: Sync {
    /// Whether there is nothing to avoid: the avoidance pass and the integration sweep skip
    /// their work then.
    fn is_empty(&self) -> bool;

    /// Casts a ball of `radius` from `origin` along unit `dir` for `length`: the first contact,
    /// or `None` when the way is clear. A ball that starts touching an obstacle hits at 0.
    fn cast(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> Option<CastHit>;

    /// Whether the way is clear for a ball, as for [`cast`](Self::cast) finding nothing,
    /// except that a ball that starts in contact with a surface is not stopped by it while it
    /// leaves it at least [`LEAVING_CONTACT`] steeply: the fan search and a held direction ask
    /// for ways out, where the cast ahead asks whether the agent is too close.
    fn is_clear(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> bool;

    /// Moves a ball of `radius` (an agent's body) `from -> to` but never into an obstacle: the
    /// motion stops where the ball first touches a surface (so a fast agent cannot tunnel
    /// through a thin wall), and a ball already overlapping one is pushed out of it. Returns
    /// the allowed centre and the outward normal of the surface it was stopped by, if any. A
    /// radius of 0 moves a point; a gap narrower than the ball is closed to it.
    fn constrain(&self, from: Vec3, to: Vec3, radius: f32) -> (Vec3, Option<Vec3>);
}

/// How steeply (the sine of the angle to the surface) a ball that starts in contact must
/// leave it for [`ObstacleQuery::is_clear`] to let it go.
pub const LEAVING_CONTACT: f32 = 0.5;

impl<T: ObstacleQuery + ?Sized> ObstacleQuery for &T {
    fn is_empty(&self) -> bool {
        (**self).is_empty()
    }

    fn cast(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> Option<CastHit> {
        (**self).cast(origin, dir, length, radius)
    }

    fn is_clear(&self, origin: Vec3, dir: Vec3, length: f32, radius: f32) -> bool {
        (**self).is_clear(origin, dir, length, radius)
    }

    fn constrain(&self, from: Vec3, to: Vec3, radius: f32) -> (Vec3, Option<Vec3>) {
        (**self).constrain(from, to, radius)
    }
}
