//! What the crate's unit tests share.

/// Numbers uniform in `0..1` from `seed` (xorshift64; `seed` must not be zero), so that each
/// test's random cases are the same every run.
pub(crate) fn unit_generator(seed: u64) -> impl FnMut() -> f32 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32
    }
}
