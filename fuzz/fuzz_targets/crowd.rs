//! Fuzzes the kernel's whole tick and its queries with arbitrary bytes decoded into parameters,
//! agents, timesteps, added forces and query points. Any panic is a finding; so is any agent
//! whose position or velocity stops being finite.

#![no_main]

use arbitrary::Unstructured;
use flock_core::glam::Quat;
use flock_core::glam::Vec3;
use flock_core::{
    AgentInput, AgentMemory, AvoidanceHold, BlendMode, Boundary, Crowd, FlockTuning, FlockWeights,
    Leader, LevelOfDetail, ObstacleAvoidance, ParamsId, Perception, RuleStyle, ScopedThreads,
    Shape, Space, SteeringLimits, Threat, VelocityObstacles,
};
use libfuzzer_sys::fuzz_target;

fn vec3(u: &mut Unstructured) -> arbitrary::Result<Vec3> {
    Ok(Vec3::new(u.arbitrary()?, u.arbitrary()?, u.arbitrary()?))
}

fn params(u: &mut Unstructured) -> arbitrary::Result<FlockTuning> {
    Ok(FlockTuning {
        weights: FlockWeights {
            separation: u.arbitrary()?,
            alignment: u.arbitrary()?,
            cohesion: u.arbitrary()?,
            target: u.arbitrary()?,
            collision_avoidance: u.arbitrary()?,
            flee: u.arbitrary()?,
            noise: u.arbitrary()?,
            leader: u.arbitrary()?,
            flow: u.arbitrary()?,
            wander: u.arbitrary()?,
            wander_rate: u.arbitrary()?,
            standoff: u.arbitrary()?,
            style: if u.arbitrary()? {
                RuleStyle::DesiredVelocity
            } else {
                RuleStyle::Vector
            },
            blending: match u.int_in_range(0..=2)? {
                0 => BlendMode::WeightedSum,
                1 => BlendMode::Prioritised,
                _ => BlendMode::RuleLimitsOnly,
            },
        },
        limits: SteeringLimits {
            max_speed: u.arbitrary()?,
            min_speed: u.arbitrary()?,
            max_force: u.arbitrary()?,
            response_time: u.arbitrary()?,
            arrival_radius: u.arbitrary()?,
            max_turn_rate: u.arbitrary()?,
            reach_radius: u.arbitrary()?,
        },
        perception: Perception {
            neighbour_radius: u.arbitrary()?,
            separation_radius: u.arbitrary()?,
            field_of_view: u.arbitrary()?,
            max_neighbours: u.arbitrary()?,
            collision_distance: u.arbitrary()?,
            collision_horizon: u.arbitrary()?,
            velocity_obstacles: match u.int_in_range(0..=2)? {
                0 => VelocityObstacles::Off,
                1 => VelocityObstacles::Reciprocal,
                _ => VelocityObstacles::Solid,
            },
            time_gap: u.arbitrary()?,
            avoidance_priority: u.arbitrary()?,
            avoidance_layers: u.arbitrary()?,
            avoidance_mask: u.arbitrary()?,
            counts_itself: u.arbitrary()?,
        },
        boundary: match u.int_in_range(0..=2)? {
            0 => Boundary::None,
            1 => Boundary::Wrap {
                min: vec3(u)?,
                max: vec3(u)?,
            },
            _ => Boundary::Walls {
                min: vec3(u)?,
                max: vec3(u)?,
                margin: u.arbitrary()?,
                weight: u.arbitrary()?,
            },
        },
    })
}

fn shape(u: &mut Unstructured) -> arbitrary::Result<Shape> {
    Ok(match u.int_in_range(0..=3)? {
        0 => Shape::Sphere {
            centre: vec3(u)?,
            radius: u.arbitrary()?,
        },
        1 => Shape::Box {
            centre: vec3(u)?,
            half_extents: vec3(u)?,
            rotation: Quat::from_xyzw(
                u.arbitrary()?,
                u.arbitrary()?,
                u.arbitrary()?,
                u.arbitrary()?,
            ),
        },
        2 => Shape::HalfSpace {
            point: vec3(u)?,
            normal: vec3(u)?,
        },
        _ => Shape::Capsule {
            a: vec3(u)?,
            b: vec3(u)?,
            radius: u.arbitrary()?,
        },
    })
}

fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let space = if u.arbitrary()? {
        Space::Volume
    } else {
        Space::Planar
    };
    let mut crowd = Crowd::new(space);
    for _ in 0..u.int_in_range(0..=3)? {
        crowd.add_params(params(u)?);
    }
    // Agents often share a point, to reach the coincident and crowded paths.
    let mut last = Vec3::ZERO;
    for _ in 0..u.int_in_range(0..=80)? {
        let position = if u.ratio(1, 4)? { last } else { vec3(u)? };
        last = position;
        crowd.push(AgentInput {
            position,
            velocity: vec3(u)?,
            heading: vec3(u)?,
            flock: u.int_in_range(0..=3)?,
            params: ParamsId(u.int_in_range(0..=4)?),
            target: if u.arbitrary()? { Some(vec3(u)?) } else { None },
        });
    }
    crowd.set_avoidance(ObstacleAvoidance {
        cast_radius: u.arbitrary()?,
        min_look_ahead: u.arbitrary()?,
        max_look_ahead: u.arbitrary()?,
        fan_degrees: u.arbitrary()?,
        hold_seconds: u.arbitrary()?,
    });
    let mut shapes = Vec::new();
    for _ in 0..u.int_in_range(0..=4)? {
        shapes.push(shape(u)?);
    }
    crowd.set_obstacles(shapes);
    let mut threats = Vec::new();
    for _ in 0..u.int_in_range(0..=2)? {
        threats.push(Threat {
            position: vec3(u)?,
            velocity: vec3(u)?,
            radius: u.arbitrary()?,
        });
    }
    crowd.set_threats(threats);
    for i in 0..crowd.len() {
        let mut memory = AgentMemory::default();
        if u.ratio(1, 4)? {
            memory.hold = Some(AvoidanceHold {
                direction: vec3(u)?,
                seconds_left: u.arbitrary()?,
            });
        }
        if u.ratio(1, 4)? {
            let leader = Leader {
                position: vec3(u)?,
                velocity: vec3(u)?,
                distance: u.arbitrary()?,
            };
            crowd.set_leader(i, Some(leader));
        }
        if u.ratio(1, 4)? {
            crowd.set_flow(i, vec3(u)?);
        }
        if u.ratio(1, 4)? {
            crowd.set_standoff(i, vec3(u)?, u.arbitrary()?);
        }
        if u.ratio(1, 4)? {
            crowd.set_speed_factor(i, u.arbitrary()?);
        }
        if u.ratio(1, 4)? {
            memory.wander = vec3(u)?;
            memory.last_force = Some(vec3(u)?);
        }
        crowd.set_memory(i, memory);
    }
    if u.arbitrary()? {
        let detail = LevelOfDetail {
            near_radius: u.arbitrary()?,
            interval: u.arbitrary()?,
        };
        crowd.set_level_of_detail(Some(detail), vec3(u)?);
    }
    crowd.set_executor(ScopedThreads(u.int_in_range(1..=3)?));
    for _ in 0..u.int_in_range(1..=3)? {
        crowd.build_index();
        crowd.accumulate_forces();
        crowd.avoid_obstacles(None);
        let force = vec3(u)?;
        for i in 0..crowd.len() {
            assert!(crowd.force(i).is_finite(), "force of agent {i}");
            crowd.add_force(i, force);
        }
        crowd.integrate(u.arbitrary()?, None);
        for i in 0..crowd.len() {
            let (p, v) = (crowd.position(i), crowd.velocity(i));
            assert!(p.is_finite() && v.is_finite(), "agent {i}: {p} {v}");
        }
        let metrics = crowd.metrics();
        assert!(metrics.polarisation.is_finite(), "{metrics:?}");
    }
    crowd.build_index();
    let (point, radius): (Vec3, f32) = (vec3(u)?, u.arbitrary()?);
    crowd.for_each_within(point, radius, |i, d| {
        assert!(
            i < crowd.len() && d <= radius,
            "agent {i} at {d} of {radius}"
        );
    });
    let k = u.int_in_range(0..=16)?;
    let nearest = crowd.k_nearest(point, k, |i| i % 2 == 0);
    assert!(nearest.len() <= k);
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});
