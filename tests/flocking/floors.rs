//! Floors ([`OnFloor`]): agents on planes stacked over one another meet only the agents,
//! obstacles and predators of their own floor.

use bevy::prelude::*;
use bevy_flock::core::FLOOR_SPACING;
use bevy_flock::prelude::*;

use crate::support::*;

/// Seek, separation and velocity obstacles, fleeing and the obstacle casts: every way agents
/// could meet.
fn crossing_tuning() -> FlockTuning {
    FlockTuning {
        weights: FlockWeights {
            separation: 1.5,
            target: 1.0,
            flee: 2.0,
            ..no_weights()
        },
        limits: SteeringLimits {
            max_speed: 2.0,
            max_force: 8.0,
            arrival_radius: 1.0,
            ..default()
        },
        perception: Perception {
            neighbour_radius: 2.0,
            separation_radius: 1.5,
            collision_distance: 0.8,
            velocity_obstacles: VelocityObstacles::Reciprocal,
            ..default()
        },
        ..default()
    }
}

/// Four agents walking east in lanes 3 m apart on floor 0 and four walking west in the same
/// lanes on floor 1; returns them, floor 0's first.
fn spawn_crossing(app: &mut App) -> Vec<Entity> {
    let mut agents = Vec::new();
    for (floor, from) in [(0, -12.0_f32), (1, 12.0)] {
        for lane in 0..4 {
            let y = 3.0 * lane as f32;
            agents.push(
                app.world_mut()
                    .spawn((
                        Agent,
                        OnFloor(floor),
                        Transform::from_xyz(from, y, 0.0),
                        Target::Point(Vec3::new(-from, y, 0.0)),
                    ))
                    .id(),
            );
        }
    }
    agents
}

/// Floor-0 agents walk head on into floor-1 agents, through the place of a pillar and past a
/// predator that are both on floor 1: they keep their lanes exactly (nothing of floor 1 turns
/// them) and arrive (within 1 m of their goals after 15 s). Floor-1 agents walk round the
/// pillar, never into it, and the predator pushes one of them off its lane. Every transform
/// stays on the plane (z 0).
#[test]
fn agents_meet_only_their_own_floor_s_agents_obstacles_and_predators() {
    let mut app = create_test_app(FlockingPlugins::default().planar());
    tune_default_flock(&mut app, crossing_tuning());
    let agents = spawn_crossing(&mut app);
    let pillar = Vec3::new(0.0, 6.0, 0.0);
    app.world_mut().spawn((
        Obstacle::Sphere { radius: 1.0 },
        OnFloor(1),
        Transform::from_translation(pillar),
    ));
    app.world_mut().spawn((
        Predator { radius: 2.5 },
        OnFloor(1),
        Transform::from_xyz(-4.0, 11.0, 0.0),
    ));
    let mut upper_off_lane = 0.0_f32;
    for _ in 0..15 * 64 {
        run_ticks(&mut app, 1);
        for (k, &agent) in agents.iter().enumerate() {
            let at = app.world().get::<Transform>(agent).unwrap().translation;
            assert_eq!(at.z, 0.0, "agent {k} left the plane");
            let lane = 3.0 * (k % 4) as f32;
            if k < 4 {
                assert_eq!(at.y, lane, "floor-0 agent {k} turned off its lane");
            } else {
                upper_off_lane = upper_off_lane.max((at.y - lane).abs());
                let clear = at.distance(pillar);
                assert!(clear > 1.0, "floor-1 agent {k} in the pillar: {clear} m");
            }
        }
    }
    assert!(
        upper_off_lane > 0.5,
        "nothing turned floor 1: {upper_off_lane} m"
    );
    for (k, &agent) in agents.iter().enumerate() {
        let at = app.world().get::<Transform>(agent).unwrap().translation;
        let goal = Vec3::new(if k < 4 { 12.0 } else { -12.0 }, 3.0 * (k % 4) as f32, 0.0);
        assert!(
            at.distance(goal) < 1.0,
            "agent {k} at {at}, short of {goal}"
        );
    }
}

/// The spatial queries search the floor of the point's z: floor 1 at `FLOOR_SPACING`, floor 0
/// at any height a game uses; and the simulation reports a floor-1 agent at its floor's z.
#[test]
fn spatial_queries_search_one_floor() {
    let mut app = create_test_app(FlockingPlugins::default().planar());
    tune_default_flock(&mut app, crossing_tuning());
    let agents = spawn_crossing(&mut app);
    run_ticks(&mut app, 1);
    let sim = app.world().resource::<FlockSimulation>();
    let found = |z: f32| -> Vec<Entity> {
        let mut found: Vec<Entity> = (sim.agents_within(Vec3::new(0.0, 4.5, z), 100.0, |_| true))
            .into_iter()
            .map(|n| n.entity)
            .collect();
        found.sort();
        found
    };
    let (mut ground, mut upper) = (agents[..4].to_vec(), agents[4..].to_vec());
    ground.sort();
    upper.sort();
    assert_eq!(found(0.0), ground);
    assert_eq!(found(1.7), ground, "a height on floor 0");
    assert_eq!(found(FLOOR_SPACING), upper);
    let nearest = sim.nearest(Vec3::new(12.0, 0.0, FLOOR_SPACING), |_| true);
    assert_eq!(nearest.map(|n| n.entity), Some(agents[4]));
    assert_eq!(sim.position(agents[4]).map(|p| p.z), Some(FLOOR_SPACING));
}

/// Two agents head on in one lane, on floors 0 and 1: they would pass through each other, but
/// one steps down to floor 0 before they meet (its [`OnFloor`] changed), and from then on they
/// keep their bodies apart (velocity obstacles) and both get by.
#[test]
fn an_agent_moved_to_another_floor_meets_that_floor_s_agents() {
    let mut app = create_test_app(FlockingPlugins::default().planar());
    tune_default_flock(&mut app, crossing_tuning());
    let [east, west] = [(0, -12.0_f32), (1, 12.0)].map(|(floor, from)| {
        app.world_mut()
            .spawn((
                Agent,
                OnFloor(floor),
                Transform::from_xyz(from, 0.0, 0.0),
                Target::Point(Vec3::new(-from, 0.0, 0.0)),
            ))
            .id()
    });
    let at = |app: &App, agent: Entity| app.world().get::<Transform>(agent).unwrap().translation;
    run_ticks(&mut app, 64);
    assert!(at(&app, east).distance(at(&app, west)) > 10.0);
    app.world_mut().entity_mut(west).insert(OnFloor(0));
    let mut closest = f32::INFINITY;
    for _ in 0..12 * 64 {
        run_ticks(&mut app, 1);
        closest = closest.min(at(&app, east).distance(at(&app, west)));
    }
    assert!(
        closest > 0.75,
        "the two came {closest} m apart (bodies 0.8 across)"
    );
    let (east, west) = (at(&app, east), at(&app, west));
    assert!(
        east.x > 10.0 && west.x < -10.0,
        "not both past: {east}, {west}"
    );
}
