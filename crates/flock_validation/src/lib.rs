//! The scenes pedestrian simulators are validated with, walked by the kernel's
//! [`FlockTuning::pedestrian`](flock_core::FlockTuning::pedestrian) recipe (or a variant of
//! it, to compare velocity-obstacle modes): RiMEA's tests (RiMEA, "Guideline for Microscopic
//! Evacuation Analysis", version 3.0, 2016) 1, 4 (the fundamental diagram), 6, 9 and 12;
//! bottlenecks of 0.9 to 2.5 m as in Seyfried et al. (2009) and Liao et al. (2014); a
//! two-way corridor; and two streams crossing at right angles. Each scene can be walked by
//! ORCA as well (the `dodgy_2d` crate, driven directly: [`people::Model::Orca`]), as the
//! reference crowd libraries build on.
//!
//! Each scene returns what it measured; this crate's tests hold the recipe to the references,
//! and `flock_bench --only pedestrians` writes the table and the plots in BENCHMARKS.md. People
//! are driven as a game would drive them: each heads for the nearest point of the next way
//! through, a body's breadth from its posts, and on through it.

pub mod bottleneck;
pub mod corridors;
pub mod fundamental_diagram;
pub mod orca;
pub mod people;
pub mod rimea;
pub mod streams;

use flock_core::Shape;
use flock_core::glam::{Quat, Vec3};

/// A body's breadth in the pedestrian recipe, m.
pub const BREADTH: f32 = 0.4;

/// A point on the plane.
pub(crate) fn v(x: f32, y: f32) -> Vec3 {
    Vec3::new(x, y, 0.0)
}

/// A wall from `a` to `b` on the plane, 0.2 m thick.
pub fn wall(a: Vec3, b: Vec3) -> Shape {
    let span = b - a;
    Shape::Box {
        centre: 0.5 * (a + b),
        half_extents: Vec3::new(0.5 * span.length() + 0.1, 0.1, 1.0),
        rotation: Quat::from_rotation_z(libm::atan2f(span.y, span.x)),
    }
}

/// Walls along the polyline through `points`.
pub fn walls(points: &[Vec3]) -> impl Iterator<Item = Shape> + '_ {
    points.windows(2).map(|w| wall(w[0], w[1]))
}

/// The signed distance from `p` to the nearest of `walls` (negative inside one).
pub fn gap_to(walls: &[Shape], p: Vec3) -> f32 {
    (walls.iter())
        .map(|w| w.distance(p))
        .fold(f32::INFINITY, f32::min)
}

/// How deep a body of the recipe's breadth at `p` is in `walls`, as a share of its radius
/// (zero or less where it is clear of them).
pub fn depth_in(walls: &[Shape], p: Vec3) -> f32 {
    let radius = 0.5 * BREADTH;
    (radius - gap_to(walls, p)) / radius
}

/// The `k`th point of the plastic-number sequence in the square from -1 to 1 (Roberts 2018's R2
/// sequence): spread evenly, in no order, the same on every platform; scenes start people
/// with it.
pub(crate) fn scatter(k: u64) -> (f32, f32) {
    // 1 / g and 1 / g^2 for g the plastic number, the root of x^3 = x + 1.
    const STEPS: [f64; 2] = [0.754_877_666_246_692_7, 0.569_840_290_998_053_3];
    let at = |step: f64| (2.0 * (0.5 + step * k as f64).fract() - 1.0) as f32;
    (at(STEPS[0]), at(STEPS[1]))
}
