//! Agents at rest stepping aside for a neighbour whose way runs through them.

use glam::Vec3;

use crate::*;

/// A block of 5 x 5 agents standing on their targets 1 m apart (bodies 0.7 m across, so 0.3 m
/// between neighbours), and one walker sent straight through its middle row: in each
/// velocity-obstacle mode the walker gets through within 12 s, as the agents in its way step
/// aside and then back (measured: 9.0 s with `Reciprocal`, 9.5 s with `Solid`; without the
/// step aside it is still wedged in the block after 12 s); 20 s on, every one of them stands
/// within 0.25 m of its place again.
#[test]
fn agents_at_rest_step_aside_for_one_walking_through_and_back() {
    let dt = 1.0 / 64.0;
    for mode in [VelocityObstacles::Reciprocal, VelocityObstacles::Solid] {
        let mut crowd = Crowd::new(Space::Planar);
        // The crowd table's tuning, force limited, a quarter of a second to reach the desired
        // velocity: with the swap tests' (reached in one tick), the walker shoves through even
        // without giving way.
        let params = crowd.add_params(FlockTuning {
            weights: FlockWeights {
                separation: 0.0,
                alignment: 0.0,
                cohesion: 0.0,
                target: 1.0,
                style: RuleStyle::DesiredVelocity,
                ..Default::default()
            },
            limits: SteeringLimits {
                max_speed: 2.0,
                max_force: 16.0,
                response_time: 0.25,
                arrival_radius: 1.0,
                reach_radius: 0.25,
                ..Default::default()
            },
            perception: Perception {
                neighbour_radius: 4.0,
                collision_distance: 0.7,
                velocity_obstacles: mode,
                ..Default::default()
            },
            ..Default::default()
        });
        let places: Vec<Vec3> = (0..25)
            .map(|k| Vec3::new((k % 5) as f32, (k / 5) as f32 - 2.0, 0.0))
            .collect();
        for &place in &places {
            crowd.push(AgentInput {
                position: place,
                velocity: Vec3::ZERO,
                heading: Vec3::X,
                flock: 0,
                params,
                target: Some(place),
            });
        }
        let goal = Vec3::new(8.0, 0.0, 0.0);
        let walker = crowd.push(AgentInput {
            position: Vec3::new(-4.0, 0.0, 0.0),
            velocity: Vec3::ZERO,
            heading: Vec3::X,
            flock: 0,
            params,
            target: Some(goal),
        });
        let through = (1..=(12.0 / dt) as usize).find(|_| {
            crowd.step(dt);
            crowd.position(walker).distance(goal) <= 0.25
        });
        let Some(through) = through else {
            panic!(
                "{mode:?}: the walker is at {} after 12 s",
                crowd.position(walker)
            );
        };
        println!("{mode:?}: through in {:.1} s", through as f32 * dt);
        for _ in 0..(20.0 / dt) as usize {
            crowd.step(dt);
        }
        for (k, &place) in places.iter().enumerate() {
            let off = crowd.position(k).distance(place);
            assert!(
                off <= 0.25,
                "{mode:?}: agent {k} stands {off} m from its place"
            );
        }
    }
}
