//! Vector helpers that stay exact and finite where glam's would overflow or underflow, and the
//! platform-independent rotation every turn uses.

use glam::{IVec3, Quat, Vec3};

/// Below this squared distance two agents count as coincident and separate along a fixed
/// pseudo-random direction (see `rules::flocking::coincident_direction`) instead of their (undefined) offset.
pub(crate) const COINCIDENT_SQ: f32 = 1e-12;

/// The cell of a grid with unit cells that holds `c`, each coordinate floored. Truncates, then
/// steps down for negative fractions: a floor without the libm call that the default x86-64
/// target (no SSE4.1) makes of `f32::floor`. Coordinates beyond `i32` saturate, so far-away
/// points share edge cells instead of overflowing; NaN lands in cell 0.
#[inline]
pub(crate) fn floor_cell(c: Vec3) -> IVec3 {
    let floor = |x: f32| {
        let t = x as i32;
        t.saturating_sub(i32::from(t as f32 > x))
    };
    IVec3::new(floor(c.x), floor(c.y), floor(c.z))
}

/// `v`'s length, also where its square overflows `f32` (beyond about 1.8e19) or underflows to
/// imprecise subnormals (below about 1e-19): the vector is then scaled first.
#[inline]
pub(crate) fn length(v: Vec3) -> f32 {
    let length_sq = v.length_squared();
    if length_sq.is_normal() || length_sq == 0.0 || !v.is_finite() {
        length_sq.sqrt()
    } else {
        let scale = v.abs().max_element();
        (v / scale).length() * scale
    }
}

/// `v` scaled to unit length, or `None` for a zero or non-finite vector: bit for bit glam's
/// `try_normalize` where the squared length is a normal number, and still of unit length where
/// it overflows or underflows (glam's then gives `None` or a vector of the wrong length).
#[inline]
pub(crate) fn unit(v: Vec3) -> Option<Vec3> {
    let length_sq = v.length_squared();
    if length_sq.is_normal() || length_sq == 0.0 || !v.is_finite() {
        v.try_normalize()
    } else {
        (v / v.abs().max_element()).try_normalize()
    }
}

/// `v` shortened to at most `max`: bit for bit glam's `clamp_length_max` where the squares are
/// normal numbers, and still correct where they overflow (glam's version then returns zero) or
/// underflow.
#[inline]
pub(crate) fn limit_length(v: Vec3, max: f32) -> Vec3 {
    let (length_sq, max_sq) = (v.length_squared(), max * max);
    if length_sq.is_normal() && max_sq.is_normal() {
        if length_sq > max_sq {
            max * (v / length_sq.sqrt())
        } else {
            v
        }
    } else if v == Vec3::ZERO || !v.is_finite() {
        v
    } else {
        let length = length(v);
        if length <= max {
            return v;
        }
        let ratio = max / length;
        // A subnormal ratio has lost precision: go through the unit vector instead.
        if ratio.is_normal() || ratio == 0.0 {
            v * ratio
        } else {
            v / length * max
        }
    }
}

/// `v` rotated by the unit quaternion `q`, in plain scalar arithmetic, so that it is the same
/// on every target. glam's `Quat * Vec3` fuses its multiplies and adds where the target has FMA
/// (a build for `-C target-cpu=native` on most x86-64 machines), which moved the kernel's golden
/// scene; this is its formula without the fusing, so that builds without FMA keep their bits.
#[inline]
pub fn rotated(q: Quat, v: Vec3) -> Vec3 {
    let (b, w) = (Vec3::new(q.x, q.y, q.z), q.w);
    (v * (w * w - b.dot(b)) + b * (v.dot(b) * 2.0)) + b.cross(v) * (w * 2.0)
}

/// The rotation by `angle` radians about unit `axis`, with libm's sine and cosine so that it is
/// the same on every platform (apply it with [`rotated`]).
#[inline]
pub(crate) fn rotation(axis: Vec3, angle: f32) -> Quat {
    let (sin, cos) = (libm::sinf(angle * 0.5), libm::cosf(angle * 0.5));
    Quat::from_xyzw(axis.x * sin, axis.y * sin, axis.z * sin, cos)
}

/// Random numbers for one agent in one tick, from the seed, the tick and the agent's index
/// (splitmix64), so that they do not depend on how the pass is split.
pub(crate) struct NoiseDraw(u64);

impl NoiseDraw {
    pub(crate) fn new(seed: u64, tick: u64, index: usize) -> Self {
        Self(seed ^ tick.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (index as u64).rotate_left(32))
    }

    /// Uniform in the cube from -1 to 1 on each axis.
    pub(crate) fn in_cube(&mut self) -> Vec3 {
        Vec3::new(self.unit(), self.unit(), self.unit()) * 2.0 - 1.0
    }

    /// Uniform in `0..1`.
    pub(crate) fn unit(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Normally distributed with mean 0 and standard deviation 1 (Box and Muller 1958), with
    /// libm's functions so that every platform draws the same.
    pub(crate) fn standard_normal(&mut self) -> f32 {
        let radius = libm::sqrtf(-2.0 * libm::logf(1.0 - self.unit()));
        radius * libm::cosf(core::f32::consts::TAU * self.unit())
    }
}
