//! Spatial queries for game code, and the chunked force pass.

use bevy::prelude::*;
use bevy_flock::prelude::*;

use crate::support::*;

/// Mismatches between the plugin's spatial queries and brute force, found by a user system.
#[derive(Resource, Default)]
struct QueryCheck {
    queries: usize,
    mismatches: Vec<String>,
}

fn check_queries(
    sim: Res<FlockSimulation>,
    agents: Query<(Entity, &Transform), With<Agent>>,
    mut check: ResMut<QueryCheck>,
) {
    let mut rng = Rng::new(41 + check.queries as u64);
    let all: Vec<(Entity, Vec3)> = agents.iter().map(|(e, t)| (e, t.translation)).collect();
    for q in 0..20 {
        let point = rng.in_cube(14.0);
        let radius = [0.5, 2.0, 4.0, 7.5, 30.0][q % 5];
        let flock = sim.flock_of(all[q].0);
        let same_flock = |e: Entity| sim.flock_of(e) == flock;

        let mut brute: Vec<(Entity, f32)> = all
            .iter()
            .map(|&(e, p)| (e, p.distance(point)))
            .filter(|&(e, d)| d <= radius && same_flock(e))
            .collect();
        brute.sort_unstable_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        let within: Vec<Entity> = sim
            .agents_within(point, radius, same_flock)
            .iter()
            .map(|a| a.entity)
            .collect();
        if within != brute.iter().map(|b| b.0).collect::<Vec<_>>() {
            check.mismatches.push(format!("within {radius} of {point}"));
        }

        let mut nearest: Vec<(Entity, f32)> =
            all.iter().map(|&(e, p)| (e, p.distance(point))).collect();
        nearest.sort_unstable_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        let k = [1, 7, 40][q % 3];
        let found: Vec<Entity> = sim
            .k_nearest(point, k, |_| true)
            .iter()
            .map(|a| a.entity)
            .collect();
        if found != nearest.iter().take(k).map(|n| n.0).collect::<Vec<_>>() {
            check.mismatches.push(format!("{k} nearest to {point}"));
        }
        if sim.nearest(point, |_| true).map(|a| a.entity) != Some(nearest[0].0) {
            check.mismatches.push(format!("nearest to {point}"));
        }
        check.queries += 3;
    }
}

#[test]
fn spatial_queries_match_brute_force() {
    let mut app = create_test_app(FlockingPlugins::default());
    let flocks = [
        spawn_flock(&mut app, FlockTuning::default()),
        spawn_flock(&mut app, FlockTuning::default()),
    ];
    let mut rng = Rng::new(40);
    for i in 0..1_500 {
        let p = rng.in_cube(12.0);
        let v = rng.direction() * 3.0;
        app.world_mut().spawn((
            Agent,
            InFlock(flocks[i % 2]),
            Transform::from_translation(p),
            Velocity(v),
        ));
    }
    app.init_resource::<QueryCheck>().add_systems(
        FixedUpdate,
        check_queries
            .after(FlockingSystems::NeighbourLookup)
            .before(FlockingSystems::ForceAccumulation),
    );
    run_ticks(&mut app, 5);
    let check = app.world().resource::<QueryCheck>();
    assert_eq!(check.queries, 5 * 60);
    assert!(check.mismatches.is_empty(), "{:?}", check.mismatches);
}

#[test]
fn the_chunked_force_pass_gives_the_serial_result() {
    let run = |chunk: usize| {
        let mut app = create_test_app(FlockingPlugins::default());
        app.world_mut()
            .resource_mut::<FlockingConfig>()
            .parallel_chunk_size = Some(chunk);
        let mut rng = Rng::new(42);
        for _ in 0..2_000 {
            let p = rng.in_cube(10.0);
            let v = rng.direction() * 3.0;
            app.world_mut()
                .spawn((Agent, Transform::from_translation(p), Velocity(v)));
        }
        run_ticks(&mut app, 20);
        positions(&mut app)
            .into_iter()
            .flat_map(|p| p.to_array().map(f32::to_bits))
            .collect::<Vec<u32>>()
    };
    assert!(run(usize::MAX) == run(64), "chunking changed the result");
}
