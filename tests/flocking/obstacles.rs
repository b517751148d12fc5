//! Obstacles: agents steer around them and never enter one, counted every tick. Each scenario
//! runs twice: against the plugin's built-in shapes, and against rapier colliders through
//! `bevy_flock_rapier`.

use bevy::platform::collections::HashSet;
use bevy::prelude::*;
use bevy_flock::core::Shape;
use bevy_flock::prelude::*;
use bevy_flock_rapier::{FlockRapierPlugin, ObstacleColliders};
use bevy_rapier3d::prelude::{Collider, CollisionGroups, Group, NoUserData, RapierPhysicsPlugin};

use crate::support::*;

/// Where a scenario's obstacles live.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Backend {
    /// The plugin's [`Obstacle`] shapes.
    BuiltIn,
    /// Rapier colliders marked [`Obstacle::Collider`].
    Rapier,
}

/// The scenario's obstacles in world space: the ground truth penetrations are counted
/// against, whichever backend the agents see them through.
#[derive(Resource, Default)]
struct Solids(Vec<Shape>);

impl Solids {
    /// Signed distance to the nearest solid (negative inside one).
    fn distance(&self, p: Vec3) -> f32 {
        self.0
            .iter()
            .map(|shape| shape.distance(p))
            .fold(f32::INFINITY, f32::min)
    }
}

/// Spawns `count` agents on the plane at seeded (`seed`) places in the rectangle from
/// `corner` across `size`, moving at `velocity`, all seeking `goal`.
fn spawn_seekers(
    app: &mut App,
    (count, seed): (usize, u64),
    [corner, size]: [Vec2; 2],
    velocity: Vec3,
    goal: Vec3,
) -> Vec<Entity> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let x = corner.x + rng.unit() * size.x;
            let y = corner.y + rng.unit() * size.y;
            app.world_mut()
                .spawn((
                    Agent,
                    Transform::from_xyz(x, y, 0.0),
                    Velocity(velocity),
                    Target::Point(goal),
                ))
                .id()
        })
        .collect()
}

/// The radius of the agents' bodies: half the default collision distance.
const BODY_RADIUS: f32 = 0.35;
/// A body this far into an obstacle counts as inside it: 5% of its radius.
const TOLERATED: f32 = 0.05 * BODY_RADIUS;

/// Agents whose bodies are found inside an obstacle (by more than [`TOLERATED`]), counted
/// every tick, and the deepest (the depth as a negative distance); and agents touching one
/// (their bodies within 0.1 of its surface).
#[derive(Resource, Default)]
struct Penetrations {
    ticks: u32,
    inside: u32,
    deepest: f32,
    touching: u32,
}

fn count_penetrations(
    agents: Query<&Transform, With<Agent>>,
    solids: Res<Solids>,
    mut seen: ResMut<Penetrations>,
) {
    seen.ticks += 1;
    for transform in &agents {
        let d = solids.distance(transform.translation) - BODY_RADIUS;
        if d < -TOLERATED {
            seen.inside += 1;
            seen.deepest = seen.deepest.min(d);
        }
        if d < 0.1 {
            seen.touching += 1;
        }
    }
}

/// The test app with `backend` installed and penetrations counted every tick.
fn obstacle_app(plugin: FlockingPlugins, backend: Backend) -> App {
    let mut app = create_test_app_with(plugin, |app| {
        if backend == Backend::Rapier {
            app.add_plugins((
                RapierPhysicsPlugin::<NoUserData>::default(),
                FlockRapierPlugin::default(),
            ));
        }
    });
    app.init_resource::<Penetrations>()
        .init_resource::<Solids>()
        .add_systems(
            FixedUpdate,
            count_penetrations.in_set(FlockingSystems::Last),
        );
    app
}

/// Spawns `shape` as `backend`'s obstacle and records it as ground truth.
fn spawn_solid(app: &mut App, backend: Backend, shape: Shape) {
    let (obstacle, collider, transform) = match shape {
        Shape::Sphere { centre, radius } => (
            Obstacle::Sphere { radius },
            Collider::ball(radius),
            Transform::from_translation(centre),
        ),
        Shape::Box {
            centre,
            half_extents: h,
            rotation,
        } => (
            Obstacle::Box { half_extents: h },
            Collider::cuboid(h.x, h.y, h.z),
            Transform::from_translation(centre).with_rotation(rotation),
        ),
        Shape::HalfSpace { point, normal } => (
            Obstacle::HalfSpace {
                normal: Dir3::new(normal).expect("unit normal"),
            },
            Collider::halfspace(normal).expect("unit normal"),
            Transform::from_translation(point),
        ),
        Shape::Capsule { a, b, radius } => {
            let half_length = a.distance(b) / 2.0;
            let rotation = Quat::from_rotation_arc(Vec3::Y, (b - a).normalize());
            (
                Obstacle::Capsule {
                    half_length,
                    radius,
                },
                Collider::capsule_y(half_length, radius),
                Transform::from_translation((a + b) / 2.0).with_rotation(rotation),
            )
        }
    };
    match backend {
        Backend::BuiltIn => app.world_mut().spawn((obstacle, transform)),
        Backend::Rapier => app
            .world_mut()
            .spawn((collider, Obstacle::Collider, transform)),
    };
    app.world_mut().resource_mut::<Solids>().0.push(shape);
}

/// Runs one tick with the obstacles and no agents yet: rapier takes its colliders into its
/// query pipeline at the end of a frame.
fn settle(app: &mut App) {
    run_ticks(app, 1);
    *app.world_mut().resource_mut::<Penetrations>() = Penetrations::default();
}

fn sphere(x: f32, y: f32, z: f32, radius: f32) -> Shape {
    Shape::Sphere {
        centre: Vec3::new(x, y, z),
        radius,
    }
}

fn axis_box(centre: Vec3, half_extents: Vec3) -> Shape {
    Shape::Box {
        centre,
        half_extents,
        rotation: Quat::IDENTITY,
    }
}

/// Declares one test per backend running `scenario`.
macro_rules! for_both_backends {
    ($scenario:ident: $built_in:ident, $rapier:ident) => {
        #[test]
        fn $built_in() {
            $scenario(Backend::BuiltIn);
        }

        #[test]
        fn $rapier() {
            $scenario(Backend::Rapier);
        }
    };
}

/// What 500 agents crossing a field of 42 pillars toward a target did over 40 seconds.
struct FieldRun {
    /// Agent-ticks inside a pillar (counted every tick), and the deepest.
    inside: u32,
    deepest: f32,
    /// Agents that got past the field.
    crossed: usize,
    /// Fraction of agent-ticks within 0.1 of a pillar's surface.
    touching: f32,
    /// Times per agent that its turning changed side (left to right or back), counting turns
    /// of more than half a degree a tick: how much it wavers.
    turn_flips: f32,
}

fn cross_pillar_field(backend: Backend, avoidance: ObstacleAvoidance) -> FieldRun {
    let mut app = obstacle_app(FlockingPlugins::default().planar(), backend);
    app.world_mut().resource_mut::<FlockingConfig>().avoidance = avoidance;
    // Pillars of radius 1.5 in staggered rows across the way, 8 apart.
    for (column, x) in (-20..=20).step_by(8).enumerate() {
        for y in (-24..=24).step_by(8) {
            let y = y as f32 + if column % 2 == 0 { 0.0 } else { 4.0 };
            spawn_solid(&mut app, backend, sphere(x as f32, y, 0.0, 1.5));
        }
    }
    settle(&mut app);
    let agents = spawn_seekers(
        &mut app,
        (500, 51),
        [Vec2::new(-45.0, -15.0), Vec2::new(12.0, 30.0)],
        Vec3::X * 2.0,
        Vec3::new(45.0, 0.0, 0.0),
    );
    // Per agent: last heading and the side it last turned to.
    let mut turning = vec![(Vec3::X, 0.0_f32); agents.len()];
    let (mut flips, mut crossed) = (0, HashSet::new());
    // 40 seconds: 90 units at up to 5 per second, with room for detours.
    for _ in 0..40 * 64 {
        run_ticks(&mut app, 1);
        for (&agent, (last_heading, last_side)) in agents.iter().zip(&mut turning) {
            let heading = app
                .world()
                .get::<Velocity>(agent)
                .unwrap()
                .normalize_or_zero();
            let turn = last_heading.cross(heading).z;
            if turn.abs() > 0.01 {
                flips += u32::from(*last_side != 0.0 && turn.signum() != *last_side);
                *last_side = turn.signum();
            }
            *last_heading = heading;
            if app.world().get::<Transform>(agent).unwrap().translation.x > 30.0 {
                crossed.insert(agent);
            }
        }
    }
    let seen = app.world().resource::<Penetrations>();
    assert_eq!(seen.ticks, 40 * 64);
    FieldRun {
        inside: seen.inside,
        deepest: seen.deepest,
        crossed: crossed.len(),
        touching: seen.touching as f32 / (500 * seen.ticks) as f32,
        turn_flips: flips as f32 / agents.len() as f32,
    }
}

for_both_backends!(pillar_field: a_crowd_crosses_a_field_of_pillars_without_entering_one, a_crowd_crosses_a_field_of_rapier_pillars_without_entering_one);

fn pillar_field(backend: Backend) {
    let run = cross_pillar_field(backend, ObstacleAvoidance::default());
    assert_eq!(
        run.inside, 0,
        "{} agent-ticks inside a pillar (deepest {})",
        run.inside, run.deepest
    );
    assert!(
        run.crossed >= 475,
        "only {} of 500 crossed the field",
        run.crossed
    );
    // Avoidance keeps them off the pillars: without it (integration sliding them along the
    // pillars only) more agent-ticks are spent with a body within 0.1 of a surface. Measured:
    // 2.9% with it, for both backends; 3.5% without it among built-in pillars, 6.5% among
    // rapier's (whose sweep slides less smoothly).
    let sliding = cross_pillar_field(
        backend,
        ObstacleAvoidance {
            min_look_ahead: 0.0,
            max_look_ahead: 0.0,
            ..default()
        },
    );
    println!(
        "touching a pillar: {:.1}% of agent-ticks, {:.1}% without avoidance",
        run.touching * 100.0,
        sliding.touching * 100.0
    );
    assert!(
        run.touching < 0.9 * sliding.touching,
        "{:.1}% of agent-ticks touching a pillar, {:.1}% without avoidance",
        run.touching * 100.0,
        sliding.touching * 100.0
    );
}

for_both_backends!(held_avoidance: holding_a_chosen_direction_steadies_a_crowd_among_pillars, holding_a_chosen_direction_steadies_a_crowd_among_rapier_pillars);

fn held_avoidance(backend: Backend) {
    // The default holds for 0.5 s.
    let held = cross_pillar_field(backend, ObstacleAvoidance::default());
    let free = cross_pillar_field(
        backend,
        ObstacleAvoidance {
            hold_seconds: 0.0,
            ..default()
        },
    );
    assert_eq!(held.inside, 0, "deepest {}", held.deepest);
    assert!(held.crossed >= 475, "only {} of 500 crossed", held.crossed);
    // Measured: 194 turns to the other side per agent without the hold, 140 with it (193 and
    // 130 among rapier's pillars).
    assert!(
        held.turn_flips < 0.8 * free.turn_flips,
        "turning changed side {:.0} times per agent with the hold, {:.0} without",
        held.turn_flips,
        free.turn_flips
    );
}

for_both_backends!(thin_wall: a_fast_agent_does_not_tunnel_through_a_thin_wall, a_fast_agent_does_not_tunnel_through_a_thin_rapier_wall);

fn thin_wall(backend: Backend) {
    let mut app = obstacle_app(FlockingPlugins::default(), backend);
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
    spawn_solid(
        &mut app,
        backend,
        axis_box(Vec3::new(10.0, 0.0, 0.0), Vec3::new(0.01, 1000.0, 1000.0)),
    );
    settle(&mut app);
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
        if std::env::var("TRACE").is_ok() {
            let t = app.world().get::<Transform>(agent).unwrap().translation;
            let v = app.world().get::<Velocity>(agent).unwrap().0;
            let st = app.world().get::<bevy_flock::SteeringState>(agent).unwrap();
            eprintln!(
                "WALL {backend:?} p {t:.4} v {v:.2} hold {:.2} {:.2}",
                st.held_direction, st.hold_left
            );
        }
        furthest = furthest.max(x);
    }
    assert!(
        furthest < 9.99,
        "reached x = {furthest} through the wall at 10"
    );
    assert!(furthest > 5.0, "stopped far from the wall, at {furthest}");
    assert_eq!(app.world().resource::<Penetrations>().inside, 0);
}

for_both_backends!(spawned_inside: an_agent_spawned_inside_an_obstacle_gets_out_calmly, an_agent_spawned_inside_a_collider_gets_out_calmly);

fn spawned_inside(backend: Backend) {
    let mut app = obstacle_app(FlockingPlugins::default(), backend);
    spawn_solid(&mut app, backend, sphere(0.0, 0.0, 0.0, 3.0));
    settle(&mut app);
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

for_both_backends!(solids_in_3d: agents_keep_out_of_walls_boxes_and_half_spaces_in_3d, agents_keep_out_of_rapier_boxes_capsules_and_half_spaces_in_3d);

fn solids_in_3d(backend: Backend) {
    let mut app = obstacle_app(FlockingPlugins::default(), backend);
    let solids = [
        Shape::HalfSpace {
            point: Vec3::new(0.0, -5.0, 0.0),
            normal: Vec3::Y,
        },
        Shape::Box {
            centre: Vec3::ZERO,
            half_extents: Vec3::new(2.0, 6.0, 2.0),
            rotation: Quat::from_rotation_y(0.6),
        },
        Shape::Capsule {
            a: Vec3::new(8.0, -4.0, 0.0),
            b: Vec3::new(8.0, 4.0, 0.0),
            radius: 1.0,
        },
    ];
    for shape in solids {
        spawn_solid(&mut app, backend, shape);
    }
    settle(&mut app);
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
    let mut app = create_test_app(FlockingPlugins::default());
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

for_both_backends!(corridor: a_crowd_streams_down_a_corridor_without_touching_its_walls, a_crowd_streams_down_a_corridor_of_colliders);

fn corridor(backend: Backend) {
    let mut app = obstacle_app(FlockingPlugins::default().planar(), backend);
    // A corridor 6 wide and 60 long between two boxes, with a pillar halfway down it.
    for y in [-4.0, 4.0] {
        spawn_solid(
            &mut app,
            backend,
            axis_box(Vec3::new(0.0, y, 0.0), Vec3::new(30.0, 1.0, 1.0)),
        );
    }
    spawn_solid(&mut app, backend, sphere(0.0, 0.5, 0.0, 0.8));
    settle(&mut app);
    let agents = spawn_seekers(
        &mut app,
        (60, 53),
        [Vec2::new(-34.0, -2.0), Vec2::new(6.0, 4.0)],
        Vec3::X,
        Vec3::new(40.0, 0.0, 0.0),
    );
    // The second in which each agent first comes out past x = 30.
    let mut out_at: Vec<Option<u32>> = vec![None; agents.len()];
    for second in 1..=40 {
        run_ticks(&mut app, 64);
        for (out, &a) in out_at.iter_mut().zip(&agents) {
            let x = app.world().get::<Transform>(a).unwrap().translation.x;
            if out.is_none() && x > 30.0 {
                *out = Some(second);
            }
        }
    }
    let seen = app.world().resource::<Penetrations>();
    assert_eq!(seen.inside, 0, "deepest {}", seen.deepest);
    let mut seconds: Vec<u32> = out_at.iter().flatten().copied().collect();
    seconds.sort_unstable();
    assert_eq!(
        seconds.len(),
        agents.len(),
        "only {} came out of the corridor",
        seconds.len()
    );
    // Measured over six seeds of the crowd and both backends: half out in 15 s, the last in 22
    // to 33 s (the last ones queue at the pillar, and one that meets it dead centre can take
    // 20 s to get round it), so a bound at 30 s fails on some seeds.
    let median = seconds[seconds.len() / 2];
    assert!(median <= 18, "half out only after {median} s: {seconds:?}");
}

/// Runs one agent from the origin toward x = 40 and returns how far along x it got.
fn run_at_a_wall(app: &mut App) -> f32 {
    let agent = app
        .world_mut()
        .spawn((
            Agent,
            Velocity(Vec3::X * 5.0),
            Target::Point(Vec3::new(40.0, 0.0, 0.0)),
        ))
        .id();
    run_ticks(app, 20 * 64);
    app.world().get::<Transform>(agent).unwrap().translation.x
}

/// A wall across the way at x = 10, as a rapier collider in group 2.
fn rapier_wall() -> impl Bundle {
    (
        Collider::cuboid(0.5, 1000.0, 1000.0),
        CollisionGroups::new(Group::GROUP_2, Group::ALL),
        Transform::from_xyz(10.0, 0.0, 0.0),
    )
}

#[test]
fn rapier_colliders_are_obstacles_when_marked_or_in_the_chosen_groups() {
    // Unmarked, with the default filter: not an obstacle, the agent flies through.
    let mut app = obstacle_app(FlockingPlugins::default(), Backend::Rapier);
    app.world_mut().spawn(rapier_wall());
    settle(&mut app);
    let x = run_at_a_wall(&mut app);
    assert!(x > 30.0, "an unmarked collider stopped the agent at {x}");

    // Marked: stopped short of it.
    let mut app = obstacle_app(FlockingPlugins::default(), Backend::Rapier);
    app.world_mut().spawn((rapier_wall(), Obstacle::Collider));
    settle(&mut app);
    let x = run_at_a_wall(&mut app);
    assert!(x < 9.5, "the marked wall let the agent through to {x}");

    // Chosen by group, unmarked: stopped; a filter on another group: through.
    for (filter, blocks) in [(Group::GROUP_2, true), (Group::GROUP_3, false)] {
        let mut app = create_test_app_with(FlockingPlugins::default(), |app| {
            app.add_plugins((
                RapierPhysicsPlugin::<NoUserData>::default(),
                FlockRapierPlugin {
                    colliders: ObstacleColliders::Groups(CollisionGroups::new(Group::ALL, filter)),
                },
            ));
        });
        app.world_mut().spawn(rapier_wall());
        run_ticks(&mut app, 1);
        let x = run_at_a_wall(&mut app);
        assert_eq!(x < 9.5, blocks, "filter {filter:?}: the agent got to {x}");
    }
}

#[test]
fn built_in_shapes_and_rapier_colliders_work_together() {
    let mut app = obstacle_app(FlockingPlugins::default(), Backend::Rapier);
    // A built-in floor under a rapier box the agents are aimed through.
    spawn_solid(
        &mut app,
        Backend::BuiltIn,
        Shape::HalfSpace {
            point: Vec3::new(0.0, -3.0, 0.0),
            normal: Vec3::Y,
        },
    );
    spawn_solid(
        &mut app,
        Backend::Rapier,
        axis_box(Vec3::new(10.0, 0.0, 0.0), Vec3::new(1.0, 2.0, 2.0)),
    );
    settle(&mut app);
    let mut rng = Rng::new(54);
    for _ in 0..50 {
        app.world_mut().spawn((
            Agent,
            Transform::from_translation(Vec3::new(-5.0, 0.0, 0.0) + rng.in_cube(1.5)),
            Velocity(Vec3::new(4.0, -2.0, 0.0)),
            Target::Point(Vec3::new(25.0, -2.5, 0.0)),
        ));
    }
    run_ticks(&mut app, 15 * 64);
    let seen = app.world().resource::<Penetrations>();
    assert_eq!(seen.inside, 0, "deepest {}", seen.deepest);
    let past = positions(&mut app).iter().filter(|p| p.x > 12.0).count();
    assert!(past >= 45, "only {past} of 50 got past the box");
}

#[test]
fn without_a_physics_world_the_rapier_backend_steps_aside() {
    // The backend without rapier's plugin: a warning, and agents fly on.
    let mut app = create_test_app_with(FlockingPlugins::default(), |app| {
        app.add_plugins(FlockRapierPlugin::default());
    });
    app.world_mut().spawn((
        Collider::ball(2.0),
        Obstacle::Collider,
        Transform::from_xyz(10.0, 0.0, 0.0),
    ));
    let x = run_at_a_wall(&mut app);
    assert!(x > 30.0, "{x}");

    // A collider obstacle without the backend: ignored with a warning, no panic.
    let mut app = create_test_app(FlockingPlugins::default());
    app.world_mut().spawn((
        Collider::ball(2.0),
        Obstacle::Collider,
        Transform::from_xyz(10.0, 0.0, 0.0),
    ));
    let x = run_at_a_wall(&mut app);
    assert!(x > 30.0, "{x}");
}

for_both_backends!(wall_detour: an_agent_walks_round_a_wall_to_a_target_behind_it, an_agent_walks_round_a_rapier_wall_to_a_target_behind_it);

/// The obstacle-avoiding creature's case: a target straight behind a wall 12 wide. Seeking pulls the agent
/// into the wall; the fan finds the way along it, and a cast that starts in contact with the
/// wall does not block the ways out of that contact.
fn wall_detour(backend: Backend) {
    let mut app = obstacle_app(FlockingPlugins::default().planar(), backend);
    spawn_solid(
        &mut app,
        backend,
        axis_box(Vec3::new(10.0, 0.0, 0.0), Vec3::new(0.5, 6.0, 1.0)),
    );
    settle(&mut app);
    let goal = Vec3::new(20.0, 0.0, 0.0);
    let agent = app
        .world_mut()
        .spawn((
            Agent,
            Transform::from_xyz(0.0, 0.2, 0.0),
            Velocity(Vec3::X * 3.0),
            Target::Point(goal),
        ))
        .id();
    let mut closest = f32::INFINITY;
    for _ in 0..20 * 64 {
        run_ticks(&mut app, 1);
        let p = app.world().get::<Transform>(agent).unwrap().translation;
        closest = closest.min(p.distance(goal));
    }
    assert!(closest < 1.0, "got no nearer than {closest} to the target");
    assert_eq!(app.world().resource::<Penetrations>().inside, 0);
}
