//! Obstacles: agents steer around them and never enter one, counted every tick.

use bevy::platform::collections::HashSet;
use bevy::prelude::*;
use bevy_flock::prelude::*;

use crate::support::*;

/// Agents found inside an obstacle, counted every tick, and the deepest; and agents touching
/// one (within 0.1 of its surface).
#[derive(Resource, Default)]
struct Penetrations {
    ticks: u32,
    inside: u32,
    deepest: f32,
    touching: u32,
}

fn count_penetrations(
    agents: Query<&Transform, With<Agent>>,
    sim: Res<FlockSimulation>,
    mut seen: ResMut<Penetrations>,
) {
    seen.ticks += 1;
    for transform in &agents {
        if let Some(d) = sim.crowd().obstacles().distance(transform.translation) {
            if d < 0.0 {
                seen.inside += 1;
                seen.deepest = seen.deepest.min(d);
            }
            if d < 0.1 {
                seen.touching += 1;
            }
        }
    }
}

fn app_with_penetration_count(plugin: FlockingPlugin) -> App {
    let mut app = create_test_app(plugin);
    app.init_resource::<Penetrations>().add_systems(
        FixedUpdate,
        count_penetrations.in_set(FlockingSystems::Last),
    );
    app
}

/// Agents that have been past `x` at some tick.
#[derive(Resource, Default)]
struct Crossed(HashSet<Entity>);

#[test]
fn a_crowd_crosses_a_field_of_pillars_without_entering_one() {
    let mut app = app_with_penetration_count(FlockingPlugin::default().planar());
    app.init_resource::<Crossed>().add_systems(
        FixedUpdate,
        (|agents: Query<(Entity, &Transform), With<Agent>>, mut crossed: ResMut<Crossed>| {
            for (entity, transform) in &agents {
                if transform.translation.x > 30.0 {
                    crossed.0.insert(entity);
                }
            }
        })
        .in_set(FlockingSystems::Last),
    );
    // Pillars of radius 1.5 in staggered rows across the way, 8 apart.
    let mut pillars = 0;
    for (column, x) in (-20..=20).step_by(8).enumerate() {
        for y in (-24..=24).step_by(8) {
            let y = y as f32 + if column % 2 == 0 { 0.0 } else { 4.0 };
            app.world_mut().spawn((
                Obstacle::Sphere { radius: 1.5 },
                Transform::from_xyz(x as f32, y, 0.0),
            ));
            pillars += 1;
        }
    }
    let mut rng = Rng::new(51);
    for _ in 0..500 {
        let p = Vec3::new(-45.0 + rng.unit() * 12.0, rng.unit() * 30.0 - 15.0, 0.0);
        app.world_mut().spawn((
            Agent,
            Transform::from_translation(p),
            Velocity(Vec3::X * 2.0),
            Target::Point(Vec3::new(45.0, 0.0, 0.0)),
        ));
    }
    // 40 seconds: 90 units at up to 5 per second, with room for detours.
    run_ticks(&mut app, 40 * 64);
    let seen = app.world().resource::<Penetrations>();
    let crossed = app.world().resource::<Crossed>().0.len();
    assert_eq!(seen.ticks, 40 * 64);
    assert_eq!(
        seen.inside, 0,
        "{} agent-ticks inside one of {pillars} pillars (deepest {})",
        seen.inside, seen.deepest
    );
    assert!(crossed >= 475, "only {crossed} of 500 crossed the field");
    // Avoidance keeps them off the pillars: without it (sliding along them only) 4.6% of
    // agent-ticks are spent within 0.1 of a surface; with it, 1.1%.
    let touching = seen.touching as f32 / (500 * seen.ticks) as f32;
    assert!(
        touching < 0.02,
        "{:.1}% of agent-ticks touching a pillar",
        touching * 100.0
    );
}

#[test]
fn a_fast_agent_does_not_tunnel_through_a_thin_wall() {
    let mut app = app_with_penetration_count(FlockingPlugin::default());
    tune_default_flock(
        &mut app,
        FlockTuning {
            limits: SteeringLimits {
                max_speed: 200.0,
                max_force: 2000.0,
                ..default()
            },
            ..default()
        },
    );
    // A wall 0.02 thick and 2,000 wide at x = 10: at 200 units per second an agent moves 3
    // units a tick, 150 times the wall's thickness.
    app.world_mut().spawn((
        Obstacle::Box {
            half_extents: Vec3::new(0.01, 1000.0, 1000.0),
        },
        Transform::from_xyz(10.0, 0.0, 0.0),
    ));
    let agent = app
        .world_mut()
        .spawn((
            Agent,
            Velocity(Vec3::X * 200.0),
            Target::Point(Vec3::new(60.0, 0.0, 0.0)),
        ))
        .id();
    let mut furthest = f32::NEG_INFINITY;
    for _ in 0..200 {
        run_ticks(&mut app, 1);
        let x = app.world().get::<Transform>(agent).unwrap().translation.x;
        furthest = furthest.max(x);
    }
    assert!(
        furthest < 9.99,
        "reached x = {furthest} through the wall at 10"
    );
    assert!(furthest > 5.0, "stopped far from the wall, at {furthest}");
    assert_eq!(app.world().resource::<Penetrations>().inside, 0);
}

#[test]
fn an_agent_spawned_inside_an_obstacle_gets_out_calmly() {
    let mut app = app_with_penetration_count(FlockingPlugin::default());
    app.world_mut()
        .spawn((Obstacle::Sphere { radius: 3.0 }, Transform::default()));
    let agent = app
        .world_mut()
        .spawn((Agent, Transform::from_xyz(0.5, 0.0, 0.0), Velocity(Vec3::Y)))
        .id();
    run_ticks(&mut app, 1);
    let p = app.world().get::<Transform>(agent).unwrap().translation;
    assert!(p.length() >= 3.0, "still inside at {p}");
    run_ticks(&mut app, 60);
    let v = app.world().get::<Velocity>(agent).unwrap().0;
    assert!(v.is_finite() && v.length() <= 5.0 + 1e-4, "{v}");
    assert_eq!(app.world().resource::<Penetrations>().inside, 0);
}

#[test]
fn agents_keep_out_of_walls_boxes_and_half_spaces_in_3d() {
    let mut app = app_with_penetration_count(FlockingPlugin::default());
    app.world_mut().spawn((
        Obstacle::HalfSpace { normal: Dir3::Y },
        Transform::from_xyz(0.0, -5.0, 0.0),
    ));
    app.world_mut().spawn((
        Obstacle::Box {
            half_extents: Vec3::new(2.0, 6.0, 2.0),
        },
        Transform::from_xyz(0.0, 0.0, 0.0).with_rotation(Quat::from_rotation_y(0.6)),
    ));
    app.world_mut().spawn((
        Obstacle::Capsule {
            half_length: 4.0,
            radius: 1.0,
        },
        Transform::from_xyz(8.0, 0.0, 0.0),
    ));
    let mut rng = Rng::new(52);
    for _ in 0..200 {
        let start = Vec3::new(-20.0, 0.0, 0.0) + rng.in_cube(4.0);
        app.world_mut().spawn((
            Agent,
            Transform::from_translation(start),
            Velocity(rng.direction() * 3.0 - Vec3::Y),
            Target::Point(Vec3::new(25.0, -4.0, rng.unit() * 4.0 - 2.0)),
        ));
    }
    run_ticks(&mut app, 20 * 64);
    let seen = app.world().resource::<Penetrations>();
    assert_eq!(seen.inside, 0, "deepest {}", seen.deepest);
    let past: usize = positions(&mut app).iter().filter(|p| p.x > 12.0).count();
    assert!(past >= 180, "only {past} of 200 got past the obstacles");
}

#[test]
fn degenerate_obstacles_are_ignored_without_a_panic() {
    let mut app = create_test_app(FlockingPlugin::default());
    for obstacle in [
        Obstacle::Sphere { radius: -1.0 },
        Obstacle::Sphere { radius: f32::NAN },
        Obstacle::Box {
            half_extents: Vec3::ZERO,
        },
        Obstacle::Capsule {
            half_length: f32::INFINITY,
            radius: 1.0,
        },
    ] {
        app.world_mut().spawn((obstacle, Transform::default()));
    }
    app.world_mut().spawn((
        Obstacle::Sphere { radius: 1.0 },
        Transform::from_scale(Vec3::NAN),
    ));
    let agent = app.world_mut().spawn((Agent, Velocity(Vec3::X))).id();
    run_ticks(&mut app, 10);
    assert!(
        app.world()
            .resource::<FlockSimulation>()
            .crowd()
            .obstacles()
            .is_empty()
    );
    let p = app.world().get::<Transform>(agent).unwrap().translation;
    assert!(p.is_finite() && p.x > 0.0, "{p}");
}

#[test]
fn a_crowd_streams_down_a_corridor_without_touching_its_walls() {
    let mut app = app_with_penetration_count(FlockingPlugin::default().planar());
    // A corridor 6 wide and 60 long between two boxes, with a pillar halfway down it.
    for y in [-4.0, 4.0] {
        app.world_mut().spawn((
            Obstacle::Box {
                half_extents: Vec3::new(30.0, 1.0, 1.0),
            },
            Transform::from_xyz(0.0, y, 0.0),
        ));
    }
    app.world_mut().spawn((
        Obstacle::Sphere { radius: 0.8 },
        Transform::from_xyz(0.0, 0.5, 0.0),
    ));
    let mut rng = Rng::new(53);
    let agents: Vec<Entity> = (0..60)
        .map(|_| {
            let p = Vec3::new(-34.0 + rng.unit() * 6.0, rng.unit() * 4.0 - 2.0, 0.0);
            app.world_mut()
                .spawn((
                    Agent,
                    Transform::from_translation(p),
                    Velocity(Vec3::X),
                    Target::Point(Vec3::new(40.0, 0.0, 0.0)),
                ))
                .id()
        })
        .collect();
    run_ticks(&mut app, 30 * 64);
    let seen = app.world().resource::<Penetrations>();
    assert_eq!(seen.inside, 0, "deepest {}", seen.deepest);
    let through = agents
        .iter()
        .filter(|&&a| app.world().get::<Transform>(a).unwrap().translation.x > 30.0)
        .count();
    assert_eq!(
        through,
        agents.len(),
        "only {through} came out of the corridor"
    );
}
