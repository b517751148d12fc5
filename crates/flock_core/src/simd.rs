//! Eight `f32` lanes, the width of the neighbour scan, in two forms that give the same bits:
//! [`Pair`], two glam `Vec4`s (SSE2 on x86-64, NEON on AArch64, scalar elsewhere), and, on
//! x86-64 processors with AVX2, `Avx`, one 256-bit register. Which one a crowd runs is
//! chosen at run time ([`SimdPath::detect`]).
//!
//! Every lane is its own IEEE-754 computation (no lane reads another, nothing is fused), and
//! lanes are only ever combined through [`Wide::to_array`] by scalar code, so both forms
//! compute the same sums in the same order.

use core::ops::{Add, BitAnd, BitAndAssign, BitOr, Div, Mul, Neg, Sub};

use glam::{BVec4A, Vec4};

/// Candidates tested at once.
pub(crate) const WIDTH: usize = 8;

/// Which instructions the neighbour scan runs on: every path gives the same bits, only the
/// speed differs. A [`Crowd`](crate::Crowd) starts on [`SimdPath::detect`]'s choice;
/// [`Crowd::set_simd_path`](crate::Crowd::set_simd_path) forces another, to compare them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SimdPath {
    /// Eight lanes as two 4-wide vectors: SSE2 on x86-64, NEON on AArch64, scalar code where
    /// the target has no vectors. Runs everywhere.
    Portable,
    /// Eight lanes in one AVX2 register: x86-64 processors that have AVX2 (most since 2013).
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl SimdPath {
    /// The fastest path this processor runs.
    pub fn detect() -> Self {
        Self::supported()
            .pop()
            .expect("the portable path runs everywhere")
    }

    /// Whether this processor runs the path.
    pub fn is_supported(self) -> bool {
        match self {
            Self::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Self::Avx2 => {
                std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt")
            }
        }
    }

    /// Every path this processor runs, slowest first.
    pub fn supported() -> Vec<Self> {
        let all = [
            Self::Portable,
            #[cfg(target_arch = "x86_64")]
            Self::Avx2,
        ];
        all.into_iter().filter(|path| path.is_supported()).collect()
    }
}

impl Default for SimdPath {
    fn default() -> Self {
        Self::detect()
    }
}

/// Eight lanes of `f32`, with the operations the neighbour scan uses.
pub(crate) trait Wide:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// A lane mask, as comparisons give it.
    type Mask: Copy + BitAnd<Output = Self::Mask> + BitOr<Output = Self::Mask> + BitAndAssign;

    /// Every lane `x`.
    fn splat(x: f32) -> Self;
    /// `column[at..at + 8]`.
    fn load(column: &[f32], at: usize) -> Self;
    /// Lane `k` holds `k`.
    fn lane_index() -> Self;
    /// The lane-wise minimum (the second operand where either is NaN, as SSE's `minps`).
    fn min(self, other: Self) -> Self;
    /// The lane-wise maximum (the second operand where either is NaN, as SSE's `maxps`).
    fn max(self, other: Self) -> Self;
    /// The lane-wise square root.
    fn sqrt(self) -> Self;
    /// `self <= other`, lane by lane (false where either is NaN).
    fn cmple(self, other: Self) -> Self::Mask;
    /// `self < other`.
    fn cmplt(self, other: Self) -> Self::Mask;
    /// `self >= other`.
    fn cmpge(self, other: Self) -> Self::Mask;
    /// `self > other`.
    fn cmpgt(self, other: Self) -> Self::Mask;
    /// `self == other`.
    fn cmpeq(self, other: Self) -> Self::Mask;
    /// `self != other` (true where either is NaN).
    fn cmpne(self, other: Self) -> Self::Mask;
    /// `if_true` in the lanes `mask` selects, `if_false` in the others.
    fn select(mask: Self::Mask, if_true: Self, if_false: Self) -> Self;
    /// Bit `k` set where lane `k` of `mask` is.
    fn bitmask(mask: Self::Mask) -> u32;
    /// The lanes, lane 0 first.
    fn to_array(self) -> [f32; WIDTH];
    /// Writes the lanes `bits` selects (bit `k` for lane `k`) to the front of `values`, lane
    /// order kept, and beside each in `slots` its lane plus `first`; what follows them in
    /// either is unspecified. With no branch on `bits`, where the lanes' form allows.
    fn compress_store(
        self,
        bits: u32,
        first: u32,
        values: &mut [f32; WIDTH],
        slots: &mut [u32; WIDTH],
    );
    /// Runs `f` compiled for the instructions this form needs, so that its loops are
    /// compiled with them.
    fn enter<R>(f: impl FnOnce() -> R) -> R;
}

/// Whether `mask` selects any lane.
#[inline(always)]
pub(crate) fn any<V: Wide>(mask: V::Mask) -> bool {
    V::bitmask(mask) != 0
}

/// How many lanes `mask` selects.
#[inline(always)]
pub(crate) fn count<V: Wide>(mask: V::Mask) -> u32 {
    V::bitmask(mask).count_ones()
}

/// The sum of the eight lanes as a balanced tree, lane 0 first: the one order both forms use.
#[inline(always)]
pub(crate) fn lane_sum<V: Wide>(v: V) -> f32 {
    let [a, b, c, d, e, f, g, h] = v.to_array();
    ((a + b) + (c + d)) + ((e + f) + (g + h))
}

/// Eight lanes as two `Vec4`s, lanes 0-3 then 4-7.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pair(Vec4, Vec4);

/// A mask of [`Pair`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct PairMask(BVec4A, BVec4A);

impl BitAnd for PairMask {
    type Output = Self;
    #[inline(always)]
    fn bitand(self, other: Self) -> Self {
        Self(self.0 & other.0, self.1 & other.1)
    }
}

impl BitOr for PairMask {
    type Output = Self;
    #[inline(always)]
    fn bitor(self, other: Self) -> Self {
        Self(self.0 | other.0, self.1 | other.1)
    }
}

impl BitAndAssign for PairMask {
    #[inline(always)]
    fn bitand_assign(&mut self, other: Self) {
        *self = *self & other;
    }
}

/// Implements a binary operator lane by lane on both halves.
macro_rules! pair_op {
    ($trait:ident, $method:ident) => {
        impl $trait for Pair {
            type Output = Self;
            #[inline(always)]
            fn $method(self, other: Self) -> Self {
                Self(self.0.$method(other.0), self.1.$method(other.1))
            }
        }
    };
}
pair_op!(Add, add);
pair_op!(Sub, sub);
pair_op!(Mul, mul);
pair_op!(Div, div);

impl Neg for Pair {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Self(-self.0, -self.1)
    }
}

/// Implements a comparison of [`Wide`] for [`Pair`] on both halves.
macro_rules! pair_cmp {
    ($($method:ident),*) => {
        $(
            #[inline(always)]
            fn $method(self, other: Self) -> PairMask {
                PairMask(self.0.$method(other.0), self.1.$method(other.1))
            }
        )*
    };
}

impl Wide for Pair {
    type Mask = PairMask;

    #[inline(always)]
    fn splat(x: f32) -> Self {
        Self(Vec4::splat(x), Vec4::splat(x))
    }

    #[inline(always)]
    fn load(column: &[f32], at: usize) -> Self {
        let lanes = &column[at..at + WIDTH];
        Self(Vec4::from_slice(&lanes[..4]), Vec4::from_slice(&lanes[4..]))
    }

    #[inline(always)]
    fn lane_index() -> Self {
        Self(Vec4::new(0.0, 1.0, 2.0, 3.0), Vec4::new(4.0, 5.0, 6.0, 7.0))
    }

    #[inline(always)]
    fn min(self, other: Self) -> Self {
        Self(self.0.min(other.0), self.1.min(other.1))
    }

    #[inline(always)]
    fn max(self, other: Self) -> Self {
        Self(self.0.max(other.0), self.1.max(other.1))
    }

    #[inline(always)]
    fn sqrt(self) -> Self {
        Self(self.0.sqrt(), self.1.sqrt())
    }

    pair_cmp!(cmple, cmplt, cmpge, cmpgt, cmpeq, cmpne);

    #[inline(always)]
    fn select(mask: PairMask, if_true: Self, if_false: Self) -> Self {
        Self(
            Vec4::select(mask.0, if_true.0, if_false.0),
            Vec4::select(mask.1, if_true.1, if_false.1),
        )
    }

    #[inline(always)]
    fn bitmask(mask: PairMask) -> u32 {
        mask.0.bitmask() | mask.1.bitmask() << 4
    }

    #[inline(always)]
    fn to_array(self) -> [f32; WIDTH] {
        let ([a, b, c, d], [e, f, g, h]) = (self.0.to_array(), self.1.to_array());
        [a, b, c, d, e, f, g, h]
    }

    #[inline(always)]
    fn compress_store(
        self,
        bits: u32,
        first: u32,
        values: &mut [f32; WIDTH],
        slots: &mut [u32; WIDTH],
    ) {
        let lanes = self.to_array();
        let mut n = 0;
        for (k, value) in lanes.into_iter().enumerate() {
            if bits >> k & 1 == 1 {
                values[n] = value;
                slots[n] = first + k as u32;
                n += 1;
            }
        }
    }

    #[inline(always)]
    fn enter<R>(f: impl FnOnce() -> R) -> R {
        f()
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) use avx::Avx;

/// The AVX2 form. Its values are made and used only on [`SimdPath::Avx2`], which a crowd runs
/// only where [`SimdPath::is_supported`] holds, that is, where the processor has AVX2: that is
/// what makes each intrinsic below sound to call. (Compiled with AVX-512's 32 registers as
/// well, it measured no faster on the benchmark's scan.)
#[cfg(target_arch = "x86_64")]
mod avx {
    use core::arch::x86_64::*;
    use core::ops::{Add, BitAnd, BitAndAssign, BitOr, Div, Mul, Neg, Sub};

    use super::{WIDTH, Wide};

    /// For each 8-bit lane mask, the lanes it selects, lowest first, three bits each: the
    /// permutation that moves them to the front (see [`Wide::compress_store`]).
    const COMPRESSED: [u32; 256] = {
        let mut table = [0; 256];
        let mut bits = 0;
        while bits < 256 {
            let (mut packed, mut n, mut lane) = (0, 0, 0);
            while lane < WIDTH {
                if bits >> lane & 1 == 1 {
                    packed |= (lane as u32) << (3 * n);
                    n += 1;
                }
                lane += 1;
            }
            table[bits] = packed;
            bits += 1;
        }
        table
    };

    /// Eight lanes in one AVX register.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Avx(__m256);

    /// A mask of [`Avx`]: every bit of a selected lane set.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct AvxMask(__m256);

    /// Wraps an expression of AVX intrinsics.
    macro_rules! avx {
        ($e:expr) => {
            // SAFETY: see the module: only run where the processor has the instructions.
            unsafe { $e }
        };
    }

    impl BitAnd for AvxMask {
        type Output = Self;
        #[inline(always)]
        fn bitand(self, other: Self) -> Self {
            Self(avx!(_mm256_and_ps(self.0, other.0)))
        }
    }

    impl BitOr for AvxMask {
        type Output = Self;
        #[inline(always)]
        fn bitor(self, other: Self) -> Self {
            Self(avx!(_mm256_or_ps(self.0, other.0)))
        }
    }

    impl BitAndAssign for AvxMask {
        #[inline(always)]
        fn bitand_assign(&mut self, other: Self) {
            *self = *self & other;
        }
    }

    /// Implements a binary operator with one intrinsic.
    macro_rules! avx_op {
        ($trait:ident, $method:ident, $intrinsic:ident) => {
            impl $trait for Avx {
                type Output = Self;
                #[inline(always)]
                fn $method(self, other: Self) -> Self {
                    Self(avx!($intrinsic(self.0, other.0)))
                }
            }
        };
    }
    avx_op!(Add, add, _mm256_add_ps);
    avx_op!(Sub, sub, _mm256_sub_ps);
    avx_op!(Mul, mul, _mm256_mul_ps);
    avx_op!(Div, div, _mm256_div_ps);

    impl Neg for Avx {
        type Output = Self;
        /// A flip of the sign bit, as glam's SSE2 negation.
        #[inline(always)]
        fn neg(self) -> Self {
            Self(avx!(_mm256_xor_ps(self.0, _mm256_set1_ps(-0.0))))
        }
    }

    /// Implements a comparison of [`Wide`] with one predicate, the one SSE's instruction of the
    /// same name uses.
    macro_rules! avx_cmp {
        ($($method:ident => $predicate:ident),*) => {
            $(
                #[inline(always)]
                fn $method(self, other: Self) -> AvxMask {
                    AvxMask(avx!(_mm256_cmp_ps::<$predicate>(self.0, other.0)))
                }
            )*
        };
    }

    impl Wide for Avx {
        type Mask = AvxMask;

        #[inline(always)]
        fn splat(x: f32) -> Self {
            Self(avx!(_mm256_set1_ps(x)))
        }

        #[inline(always)]
        fn load(column: &[f32], at: usize) -> Self {
            let lanes = &column[at..at + WIDTH];
            // The slice holds the eight lanes read (unaligned loads are allowed).
            Self(avx!(_mm256_loadu_ps(lanes.as_ptr())))
        }

        #[inline(always)]
        fn lane_index() -> Self {
            Self(avx!(_mm256_setr_ps(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0)))
        }

        #[inline(always)]
        fn min(self, other: Self) -> Self {
            Self(avx!(_mm256_min_ps(self.0, other.0)))
        }

        #[inline(always)]
        fn max(self, other: Self) -> Self {
            Self(avx!(_mm256_max_ps(self.0, other.0)))
        }

        #[inline(always)]
        fn sqrt(self) -> Self {
            Self(avx!(_mm256_sqrt_ps(self.0)))
        }

        avx_cmp!(
            cmple => _CMP_LE_OQ,
            cmplt => _CMP_LT_OQ,
            cmpge => _CMP_GE_OQ,
            cmpgt => _CMP_GT_OQ,
            cmpeq => _CMP_EQ_OQ,
            cmpne => _CMP_NEQ_UQ
        );

        #[inline(always)]
        fn select(mask: AvxMask, if_true: Self, if_false: Self) -> Self {
            Self(avx!(_mm256_blendv_ps(if_false.0, if_true.0, mask.0)))
        }

        #[inline(always)]
        fn bitmask(mask: AvxMask) -> u32 {
            avx!(_mm256_movemask_ps(mask.0)) as u32
        }

        #[inline(always)]
        fn to_array(self) -> [f32; WIDTH] {
            let mut lanes = [0.0; WIDTH];
            // `lanes` has room for the eight lanes written.
            avx!(_mm256_storeu_ps(lanes.as_mut_ptr(), self.0));
            lanes
        }

        #[inline(always)]
        fn compress_store(
            self,
            bits: u32,
            first: u32,
            values: &mut [f32; WIDTH],
            slots: &mut [u32; WIDTH],
        ) {
            let packed = COMPRESSED[(bits & 0xFF) as usize] as i32;
            let shifts = avx!(_mm256_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21));
            let lanes = avx!(_mm256_and_si256(
                _mm256_srlv_epi32(_mm256_set1_epi32(packed), shifts),
                _mm256_set1_epi32(7),
            ));
            // `values` and `slots` have room for the eight lanes written (unaligned stores
            // are allowed).
            avx!(_mm256_storeu_ps(
                values.as_mut_ptr(),
                _mm256_permutevar8x32_ps(self.0, lanes)
            ));
            avx!(_mm256_storeu_si256(
                slots.as_mut_ptr().cast(),
                _mm256_add_epi32(lanes, _mm256_set1_epi32(first as i32)),
            ));
        }

        #[inline(always)]
        fn enter<R>(f: impl FnOnce() -> R) -> R {
            /// `f` with AVX2 (and POPCNT, which every AVX2 processor has, for counting mask
            /// bits) enabled, so that the lane operations inlined into it compile to AVX
            /// instructions.
            #[target_feature(enable = "avx2,popcnt")]
            fn with_avx2<R>(f: impl FnOnce() -> R) -> R {
                f()
            }
            avx!(with_avx2(f))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`Wide::compress_store`] writes to the front for lane mask `bits`, lane `k`
    /// holding `10 k + 1`, the first slot 100.
    fn compressed<V: Wide>(bits: u32) -> (Vec<f32>, Vec<u32>) {
        V::enter(|| {
            let lanes = V::lane_index() * V::splat(10.0) + V::splat(1.0);
            let (mut values, mut slots) = ([f32::NAN; WIDTH], [u32::MAX; WIDTH]);
            lanes.compress_store(bits, 100, &mut values, &mut slots);
            let taken = bits.count_ones() as usize;
            (values[..taken].to_vec(), slots[..taken].to_vec())
        })
    }

    #[test]
    fn compress_store_moves_the_selected_lanes_to_the_front_in_order() {
        for bits in 0..256_u32 {
            let lanes: Vec<u32> = (0..8).filter(|k| bits >> k & 1 == 1).collect();
            let expected = (
                lanes.iter().map(|&k| k as f32 * 10.0 + 1.0).collect(),
                lanes.iter().map(|&k| 100 + k).collect(),
            );
            assert_eq!(compressed::<Pair>(bits), expected, "portable, {bits:#010b}");
            #[cfg(target_arch = "x86_64")]
            if SimdPath::Avx2.is_supported() {
                assert_eq!(compressed::<Avx>(bits), expected, "AVX2, {bits:#010b}");
            }
        }
    }
}
