//! The kernel's rows, and the neighbour searches it is compared with: kd-tree, kiddo, brute force.

use std::time::Duration;

use bevy::prelude::*;
use flock_core::SimdPath;

use crate::harness::{PoolParts, time_ticks};
use crate::rows::{Method, Row, row};
use crate::workload::{DT, RADIUS, Workload};

pub(crate) fn bench_kernel(
    workload: &Workload,
    threads: usize,
    ticks: usize,
    simd: SimdPath,
) -> Row {
    let mut crowd = workload.crowd();
    assert!(crowd.set_simd_path(simd), "{simd:?} is not supported here");
    if threads > 1 {
        crowd.set_executor(PoolParts(threads));
    }
    let times = time_ticks(ticks, Duration::ZERO, || crowd.step(DT));
    let neighbours = crowd.metrics().mean_neighbours;
    let candidates = crowd.candidates_per_agent();
    let method = if simd == SimdPath::detect() {
        Method::Kernel
    } else {
        Method::KernelPortable
    };
    row(
        method,
        workload,
        threads,
        times,
        neighbours,
        Some(candidates),
    )
}

/// Runs `query(i)` for every agent, split over `threads` scoped threads; returns the sum.
pub(crate) fn for_all_agents(
    n: usize,
    threads: usize,
    query: impl Fn(usize) -> usize + Sync,
) -> usize {
    if threads == 1 {
        return (0..n).map(&query).sum();
    }
    let part = n.div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let query = &query;
                scope.spawn(move || {
                    (t * part..((t + 1) * part).min(n))
                        .map(query)
                        .sum::<usize>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("worker")).sum()
    })
}

/// Times a method that only finds neighbours: `tick` rebuilds its structure and returns the
/// neighbours found over all agents.
pub(crate) fn bench_search(
    method: Method,
    workload: &Workload,
    threads: usize,
    ticks: usize,
    candidates: Option<f32>,
    mut tick: impl FnMut() -> usize,
) -> Row {
    let mut found = 0;
    let times = time_ticks(ticks, Duration::ZERO, || found = tick());
    let neighbours = found as f32 / workload.len() as f32;
    row(method, workload, threads, times, neighbours, candidates)
}

pub(crate) fn bench_kd_tree(workload: &Workload, threads: usize, ticks: usize) -> Row {
    let n = workload.len();
    bench_search(Method::KdTree, workload, threads, ticks, None, || {
        let items: Vec<([f32; 3], u32)> = workload
            .positions
            .iter()
            .enumerate()
            .map(|(i, p)| (p.to_array(), i as u32))
            .collect();
        let tree = kd_tree::KdTree::build_by_ordered_float(items);
        for_all_agents(n, threads, |i| {
            // Minus the agent itself, which every radius query returns.
            tree.within_radius(&workload.positions[i].to_array(), RADIUS)
                .len()
                - 1
        })
    })
}

pub(crate) fn bench_kiddo(workload: &Workload, threads: usize, ticks: usize) -> Row {
    let n = workload.len();
    let points: Vec<[f32; 3]> = workload.positions.iter().map(|p| p.to_array()).collect();
    bench_search(Method::Kiddo, workload, threads, ticks, None, || {
        let tree: kiddo::ImmutableKdTree<f32, 3> =
            kiddo::ImmutableKdTree::new_from_slice(&points).expect("build kiddo tree");
        for_all_agents(n, threads, |i| {
            tree.query(&points[i])
                .within::<kiddo::SquaredEuclidean<f32>>(RADIUS * RADIUS)
                .unsorted()
                .execute()
                .len()
                - 1
        })
    })
}

pub(crate) fn bench_brute(workload: &Workload, threads: usize, ticks: usize) -> Row {
    let n = workload.len();
    let positions = &workload.positions;
    let candidates = Some(n as f32 - 1.0);
    bench_search(Method::Brute, workload, threads, ticks, candidates, || {
        for_all_agents(n, threads, |i| {
            let p = positions[i];
            positions
                .iter()
                .filter(|q| q.distance_squared(p) <= RADIUS * RADIUS)
                .count()
                - 1
        })
    })
}
