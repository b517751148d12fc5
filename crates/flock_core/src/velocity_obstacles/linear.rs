//! The linear program the plane and space share (Seidel's incremental algorithm, as the RVO2
//! libraries run it): the allowed velocity nearest the preferred one within the max speed, and,
//! where the constraints cannot all hold, the one that violates them least. Each dimension
//! gives its constraint (a half-plane, a half-space) the program one dimension lower on its
//! boundary ([`Constraint::on_boundary`]) and the projection the least-violation program uses.

use glam::{Vec2, Vec3};

/// A velocity of the program: a `Vec2` on the plane, a `Vec3` in space.
pub(super) trait Velocity: Copy {
    fn length_squared(self) -> f32;
    fn normalize_or_zero(self) -> Self;
    fn scaled(self, s: f32) -> Self;
}

impl Velocity for Vec2 {
    #[inline]
    fn length_squared(self) -> f32 {
        Vec2::length_squared(self)
    }

    #[inline]
    fn normalize_or_zero(self) -> Self {
        Vec2::normalize_or_zero(self)
    }

    #[inline]
    fn scaled(self, s: f32) -> Self {
        self * s
    }
}

impl Velocity for Vec3 {
    #[inline]
    fn length_squared(self) -> f32 {
        Vec3::length_squared(self)
    }

    #[inline]
    fn normalize_or_zero(self) -> Self {
        Vec3::normalize_or_zero(self)
    }

    #[inline]
    fn scaled(self, s: f32) -> Self {
        self * s
    }
}

/// One constraint of the program: the velocities on one side of a line (on the plane) or a
/// plane (in space).
pub(super) trait Constraint: Copy + Sized {
    type V: Velocity;

    /// How far `v` lies outside (positive) or inside (negative) the constraint.
    fn violation(&self, v: Self::V) -> f32;

    /// The point of constraint `k`'s boundary within the ball of `radius` that every
    /// constraint before `k` allows, nearest `target` (or furthest along the unit direction
    /// `target`, with `along_target`); `None` when there is none.
    fn on_boundary(
        constraints: &[Self],
        k: usize,
        radius: f32,
        target: Self::V,
        along_target: bool,
    ) -> Option<Self::V>;

    /// Where `self` and `other` violate equally, as a constraint on `self`'s boundary for the
    /// least-violation program; `None` when `other` adds nothing (parallel, the same way).
    fn equal_violation(&self, other: &Self) -> Option<Self>;

    /// The unit direction out of the constraint, which the least-violation program pushes
    /// along.
    fn outward(&self) -> Self::V;
}

/// The velocity nearest `preferred` within `max_speed` that every constraint allows. Where none
/// is, the first `fixed` still hold and the one within `max_speed` whose worst violation of
/// the others is least is taken (van den Berg et al. 2011, section 5.3, for dense crowds);
/// where even the fixed ones cannot all hold, the one whose worst violation of them is least.
/// Also whether it was one of those (the constraints could not all be met). `projected` is
/// scratch space.
pub(super) fn solve<C: Constraint>(
    constraints: &[C],
    fixed: usize,
    max_speed: f32,
    preferred: C::V,
    projected: &mut Vec<C>,
) -> (C::V, bool) {
    let mut result = preferred;
    let failed = incremental(constraints, max_speed, preferred, false, &mut result);
    if failed < fixed {
        least_violation(
            &constraints[..fixed],
            0,
            failed,
            max_speed,
            &mut result,
            projected,
        );
    } else if failed < constraints.len() {
        least_violation(
            constraints,
            fixed,
            failed,
            max_speed,
            &mut result,
            projected,
        );
    }
    (result, failed < constraints.len())
}

/// Seidel's incremental linear program: the velocity within `radius` nearest `target` (or
/// furthest along the unit direction `target`, with `along_target`) that every constraint
/// allows, written to `result`. Returns the number of constraints satisfied: all of them, or
/// the index of the first that could not be, with `result` the answer for those before it.
pub(super) fn incremental<C: Constraint>(
    constraints: &[C],
    radius: f32,
    target: C::V,
    along_target: bool,
    result: &mut C::V,
) -> usize {
    *result = if along_target {
        target.scaled(radius)
    } else if target.length_squared() > radius * radius {
        target.normalize_or_zero().scaled(radius)
    } else {
        target
    };
    for k in 0..constraints.len() {
        if constraints[k].violation(*result) > 0.0 {
            match C::on_boundary(constraints, k, radius, target, along_target) {
                Some(found) => *result = found,
                None => return k,
            }
        }
    }
    constraints.len()
}

/// Where the constraints from `first_failed` on cannot all be met: the velocity that keeps the
/// first `fixed` and minimises the largest violation of the others (the paper's program over
/// velocity and violation, one dimension up, solved as a program per constraint that raises
/// the bound).
fn least_violation<C: Constraint>(
    constraints: &[C],
    fixed: usize,
    first_failed: usize,
    radius: f32,
    result: &mut C::V,
    projected: &mut Vec<C>,
) {
    let mut distance = 0.0;
    for i in first_failed..constraints.len() {
        if constraints[i].violation(*result) <= distance {
            continue;
        }
        projected.clear();
        projected.extend_from_slice(&constraints[..fixed]);
        for j in fixed..i {
            if let Some(equal) = constraints[i].equal_violation(&constraints[j]) {
                projected.push(equal);
            }
        }
        let kept = *result;
        let outward = constraints[i].outward();
        if incremental(projected, radius, outward, true, result) < projected.len() {
            // Only rounding can get here; the last result stands.
            *result = kept;
        }
        distance = constraints[i].violation(*result);
    }
}
