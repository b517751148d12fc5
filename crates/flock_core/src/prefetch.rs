//! Prefetch hints for passes that read one buffer through another's order.

/// Asks the processor to start loading `items[map[i]]`, for a pass that goes through `i` in
/// order and reads `items` through `map`, out of order: integration reads buffers kept by grid
/// slot (`map` the agents' slots), the gather into slot order reads agents by index (`map` the
/// slots' agents). At 100,000 agents such loads missed the cache for nearly every agent. A hint
/// only; nothing happens past either end.
#[inline(always)]
pub(crate) fn prefetch_mapped<T>(map: &[u32], items: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(&k) = map.get(i)
        && let Some(item) = items.get(k as usize)
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE, which `_mm_prefetch` needs, is part of every x86-64 processor; a
        // prefetch reads nothing the program sees, and the address is of a live element.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(core::ptr::from_ref(item).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (map, items, i);
}
