//! Same inputs, same bits: across runs, executors, thread counts and commits.
//!
//! What holds across platforms: every operation in a tick is IEEE-754 addition, multiplication,
//! division, square root or comparison (bit-exact everywhere), in an order fixed by the code,
//! not by the thread count; the neighbour scan puts each candidate in the same one of eight
//! SIMD lanes on every path (two SSE2 or NEON vectors, or one AVX2 register) and sums the lanes
//! in a fixed order; the one transcendental function (the field of view's cosine) comes from
//! `libm`, the same code on every target. Rust never fuses a multiply and an add unless asked,
//! but glam's SIMD types (`Quat`, `Vec3A`, `Vec4`) do where the build's target has FMA, so the
//! kernel rotates with its own [`rotated`](crate::rotated) and keeps glam's SIMD types to lane
//! arithmetic that never fuses. No result depends on the order of a hash map. So the golden
//! hash below is expected to hold on any IEEE-754 target; CI checks it on x86-64, on the
//! portable (SSE2) path and on AVX2 where the processor has it, and in a build with FMA
//! allowed (`-C target-feature=+fma`).

use glam::Vec3;

use super::{crowd_with, random_positions};
use crate::*;

/// FNV-1a over the bits of every agent's position and velocity after the golden run. If a
/// change to the simulation is intended, set this to the value the failing test prints and say
/// in the commit why the numbers moved.
const GOLDEN_HASH: u64 = 0x3596_9d9d_8cbc_4e1c;
const GOLDEN_TICKS: usize = 1_000;

/// A mixed scene: three flocks with different rules (walls with a field of view, wrap-around
/// with desired-velocity steering and noise, vector steering toward targets with collision
/// avoidance), a knot of agents over the neighbour cap, and coincident pairs, so that both the
/// lane scan and the exact scan run.
fn mixed_scene() -> Crowd {
    let mut crowd = Crowd::new(Space::Volume);
    let walls = crowd.add_params(FlockTuning {
        perception: Perception {
            field_of_view: 270.0,
            ..Default::default()
        },
        boundary: Boundary::Walls {
            min: Vec3::splat(-12.0),
            max: Vec3::splat(12.0),
            margin: 3.0,
            weight: 1.0,
        },
        ..Default::default()
    });
    let wrap = crowd.add_params(FlockTuning {
        weights: FlockWeights {
            style: RuleStyle::DesiredVelocity,
            noise: 0.2,
            ..Default::default()
        },
        boundary: Boundary::Wrap {
            min: Vec3::splat(-12.0),
            max: Vec3::splat(12.0),
        },
        ..Default::default()
    });
    let seekers = crowd.add_params(FlockTuning {
        weights: FlockWeights {
            collision_avoidance: 1.0,
            ..Default::default()
        },
        perception: Perception {
            max_neighbours: Some(8),
            ..Default::default()
        },
        ..Default::default()
    });
    let positions = random_positions(600, 11.0, 31);
    let velocities = random_positions(600, 4.0, 32);
    for (i, (&position, &velocity)) in positions.iter().zip(&velocities).enumerate() {
        let (params, target) = match i % 3 {
            0 => (walls, None),
            1 => (wrap, None),
            _ => (seekers, Some(Vec3::new(5.0, -3.0, 2.0))),
        };
        // Every 50th agent starts on top of the one before it; the seekers start in a knot.
        let position = match i {
            _ if i % 50 == 1 => positions[i - 1],
            _ if i % 3 == 2 => position * 0.1,
            _ => position,
        };
        crowd.push(AgentInput {
            position,
            velocity,
            heading: Vec3::ZERO,
            flock: (i % 3) as u32,
            params,
            target,
        });
    }
    crowd
}

/// FNV-1a over the bits of every agent's position and velocity.
fn state_hash(crowd: &Crowd) -> u64 {
    let mut hash = 0xCBF2_9CE4_8422_2325_u64;
    for i in 0..crowd.len() {
        let (p, v) = (crowd.position(i), crowd.velocity(i));
        for bits in [p.x, p.y, p.z, v.x, v.y, v.z].map(f32::to_bits) {
            for byte in bits.to_le_bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3);
            }
        }
    }
    hash
}

fn run_mixed_scene(executor: impl ChunkExecutor + Send + Sync + 'static, ticks: usize) -> u64 {
    run_mixed_scene_on(SimdPath::detect(), executor, ticks)
}

/// The golden run with the neighbour scan on lanes of form `simd`.
fn run_mixed_scene_on(
    simd: SimdPath,
    executor: impl ChunkExecutor + Send + Sync + 'static,
    ticks: usize,
) -> u64 {
    let mut crowd = mixed_scene();
    assert!(crowd.set_simd_path(simd));
    crowd.set_executor(executor);
    for _ in 0..ticks {
        crowd.step(1.0 / 60.0);
        let m = crowd.metrics();
        assert!(m.polarisation.is_finite() && m.mean_neighbours.is_finite());
    }
    state_hash(&crowd)
}

#[test]
fn the_mixed_scene_repeats_bit_for_bit_on_any_thread_count() {
    let serial = run_mixed_scene(Serial, GOLDEN_TICKS);
    assert_eq!(
        serial,
        run_mixed_scene(Serial, GOLDEN_TICKS),
        "two serial runs differ"
    );
    for threads in [1, 2, 4] {
        assert_eq!(
            run_mixed_scene(ScopedThreads(threads), GOLDEN_TICKS),
            serial,
            "{threads} threads differ from the serial run"
        );
    }
    // Every form of the SIMD lanes this processor runs (the portable one and AVX2 on x86-64),
    // forced in turn.
    for simd in SimdPath::supported() {
        assert_eq!(
            run_mixed_scene_on(simd, Serial, GOLDEN_TICKS),
            serial,
            "the neighbour scan on {simd:?} lanes differs from the run on the detected ones"
        );
    }
    assert_eq!(
        serial, GOLDEN_HASH,
        "the mixed scene's state after {GOLDEN_TICKS} ticks hashes to {serial:#018x}, not the \
         stored {GOLDEN_HASH:#018x}. If the simulation was meant to change, set GOLDEN_HASH in \
         crates/flock_core/src/tests/determinism.rs to {serial:#018x} and say why in the commit."
    );
}

/// Positions and velocities after `ticks` ticks of a dense crowd, with the force pass run by
/// `executor`.
fn run_dense(executor: impl ChunkExecutor + Send + Sync + 'static, ticks: usize) -> Vec<[u32; 6]> {
    let positions = random_positions(1_500, 8.0, 11);
    let mut crowd = crowd_with(Space::Volume, FlockTuning::default(), &positions, |i| {
        Vec3::new(
            (i % 7) as f32 - 3.0,
            (i % 5) as f32 - 2.0,
            (i % 3) as f32 - 1.0,
        )
    });
    crowd.set_executor(executor);
    for _ in 0..ticks {
        crowd.build_index();
        crowd.accumulate_forces();
        crowd.integrate(1.0 / 60.0, None);
    }
    (0..crowd.len())
        .map(|i| {
            let (p, v) = (crowd.position(i), crowd.velocity(i));
            [p.x, p.y, p.z, v.x, v.y, v.z].map(f32::to_bits)
        })
        .collect()
}

#[test]
fn a_dense_crowd_repeats_bit_for_bit_on_any_thread_count() {
    let serial = run_dense(Serial, 30);
    for threads in [1, 2, 4] {
        assert!(
            run_dense(ScopedThreads(threads), 30) == serial,
            "{threads} threads differ"
        );
    }
}

/// The kernel rotates vectors with `rotated`, glam's `Quat * Vec3` formula without fused
/// multiply-adds: where the build has no FMA, bit for bit what glam gives; where it has, within
/// rounding of it (glam's then fuses, which is why the kernel does not use it).
#[test]
fn rotated_is_glams_rotation_without_the_fusing() {
    let axes = random_positions(200, 1.0, 3);
    let vectors = random_positions(200, 50.0, 4);
    for (k, (&axis, &v)) in axes.iter().zip(&vectors).enumerate() {
        let Some(axis) = axis.try_normalize() else {
            continue;
        };
        let q = glam::Quat::from_axis_angle(axis, k as f32 * 0.37 - 30.0);
        let (ours, glams) = (rotated(q, v), q * v);
        if cfg!(target_feature = "fma") {
            assert!(
                (ours - glams).length() <= 1e-5 * v.length(),
                "{ours} against {glams}"
            );
        } else {
            assert_eq!(
                ours.to_array().map(f32::to_bits),
                glams.to_array().map(f32::to_bits)
            );
        }
    }
}
