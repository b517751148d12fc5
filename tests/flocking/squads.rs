//! RTS fight rules: units keep their standoff distance from enemy units.

use bevy::prelude::*;
use bevy_flock::prelude::*;

use crate::support::*;

/// A unit of team 0 at `at`, attacking `enemy` (its target).
fn spawn_unit(app: &mut App, at: Vec3, weapon_range: Option<f32>, enemy: Entity) -> Entity {
    app.world_mut()
        .spawn((
            Agent,
            Transform::from_translation(at),
            Target::Entity(enemy),
            Combatant {
                team: 0,
                radius: 0.5,
                weapon_range,
                sight: 0.0,
            },
        ))
        .id()
}

#[test]
fn melee_ranged_and_support_units_hold_their_standoffs_from_an_enemy() {
    let mut app = create_squads_test_app(FlockingPlugins::default().planar());
    tune_default_flock(
        &mut app,
        FlockTuning {
            weights: FlockWeights {
                target: 1.0,
                separation: 1.8,
                standoff: 3.0,
                ..no_weights()
            },
            limits: SteeringLimits {
                max_speed: 4.0,
                max_force: 8.0,
                arrival_radius: 2.0,
                ..default()
            },
            ..default()
        },
    );
    let enemy = app
        .world_mut()
        .spawn((
            Transform::default(),
            Combatant {
                team: 1,
                radius: 0.5,
                weapon_range: Some(6.0),
                sight: 0.0,
            },
        ))
        .id();
    // (unit, standoff): melee at its range, ranged at its range, support outside the
    // enemy's range plus 5.
    let units = [
        (
            spawn_unit(&mut app, Vec3::new(-20.0, 0.0, 0.0), Some(1.5), enemy),
            1.5,
        ),
        (
            spawn_unit(&mut app, Vec3::new(20.0, 3.0, 0.0), Some(6.0), enemy),
            6.0,
        ),
        (
            spawn_unit(&mut app, Vec3::new(0.0, 20.0, 0.0), None, enemy),
            11.0,
        ),
    ];
    let mut largest_error = [0.0_f32; 3];
    let mut closest = [f32::INFINITY; 3];
    for tick in 0..960 {
        run_ticks(&mut app, 1);
        for (k, &(unit, standoff)) in units.iter().enumerate() {
            let distance = app
                .world()
                .get::<Transform>(unit)
                .unwrap()
                .translation
                .length();
            closest[k] = closest[k].min(distance);
            // Over the last 5 s, once they have come in.
            if tick >= 640 {
                largest_error[k] = largest_error[k].max((distance - standoff).abs());
            }
        }
    }
    println!(
        "standoff errors over the last 5 s (melee 1.5, ranged 6, support 11): {largest_error:?}; closest approach {closest:?}"
    );
    for (k, &(_, standoff)) in units.iter().enumerate() {
        assert!(
            largest_error[k] < 0.05 * standoff,
            "unit {k}: off its standoff {standoff} by up to {}",
            largest_error[k]
        );
    }
    // Each brakes as it comes in, and so never goes far inside its standoff: the support
    // unit never within the enemy's weapon range.
    for (k, &(_, standoff)) in units.iter().enumerate() {
        assert!(
            closest[k] > 0.95 * standoff,
            "unit {k} came within {} of the enemy, standoff {standoff}",
            closest[k]
        );
    }
    assert!(
        closest[2] > 6.0,
        "the support unit came within {}",
        closest[2]
    );
}

#[test]
fn standoff_distances_follow_seed_003s_three_cases() {
    let armed = |range| Combatant {
        team: 0,
        radius: 0.5,
        weapon_range: Some(range),
        sight: 0.0,
    };
    let unarmed = Combatant {
        team: 0,
        radius: 0.5,
        weapon_range: None,
        sight: 0.0,
    };
    assert_eq!(armed(4.0).standoff(&unarmed), 4.0);
    assert_eq!(unarmed.standoff(&armed(4.0)), 9.0);
    assert_eq!(unarmed.standoff(&unarmed), 10.5);
}

#[test]
fn a_unit_on_its_way_engages_an_enemy_in_sight_then_goes_on() {
    let mut app = create_squads_test_app(FlockingPlugins::default().planar());
    tune_default_flock(
        &mut app,
        FlockTuning {
            weights: FlockWeights {
                target: 1.0,
                standoff: 3.0,
                ..no_weights()
            },
            limits: SteeringLimits {
                max_speed: 4.0,
                max_force: 8.0,
                arrival_radius: 2.0,
                ..default()
            },
            ..default()
        },
    );
    app.insert_resource(Terrain::new(Vec2::ZERO, 1.0, UVec2::new(30, 10)));
    let enemy = app
        .world_mut()
        .spawn((
            Transform::from_xyz(15.0, 5.0, 0.0),
            Combatant {
                team: 1,
                radius: 0.5,
                weapon_range: Some(3.0),
                sight: 0.0,
            },
        ))
        .id();
    let goal = Vec3::new(28.0, 5.0, 0.0);
    let unit = app
        .world_mut()
        .spawn((
            Agent,
            Transform::from_xyz(2.0, 5.0, 0.0),
            Destination(goal),
            Combatant {
                team: 0,
                radius: 0.5,
                weapon_range: Some(4.0),
                sight: 6.0,
            },
        ))
        .id();
    let position = |app: &App| app.world().get::<Transform>(unit).unwrap().translation;
    run_ticks(&mut app, 512);
    let engaged_at = position(&app).distance(Vec3::new(15.0, 5.0, 0.0));
    assert_eq!(
        app.world().get::<Target>(unit),
        Some(&Target::Entity(enemy)),
        "in sight: it goes for the enemy"
    );
    assert!(
        (engaged_at - 4.0).abs() < 0.1,
        "it holds at its weapon range: {engaged_at}"
    );
    app.world_mut().despawn(enemy);
    run_ticks(&mut app, 512);
    let left = position(&app).distance(goal);
    println!("engaged at {engaged_at:.3} (range 4); after the enemy fell, {left:.3} from the goal");
    assert!(left < 0.5, "it went on to its destination: {left} away");
}

/// The enemy a unit on its way engages, of two equally near, with the enemies spawned in
/// `order` (their ids) after `padding` other entities.
fn engaged_of_two_equally_near(order: [u64; 2], padding: usize) -> u64 {
    let mut app = create_squads_test_app(FlockingPlugins::default().planar());
    for _ in 0..padding {
        app.world_mut().spawn(Transform::default());
    }
    let fighter = |team, sight| Combatant {
        team,
        radius: 0.5,
        weapon_range: Some(2.0),
        sight,
    };
    for id in order {
        let x = if id == 10 { 5.0 } else { -5.0 };
        let at = Transform::from_xyz(x, 0.0, 0.0);
        app.world_mut().spawn((AgentId(id), at, fighter(1, 0.0)));
    }
    let unit = (
        Agent,
        AgentId(1),
        fighter(0, 10.0),
        Destination(Vec3::Y * 50.0),
    );
    let unit = app.world_mut().spawn(unit).id();
    run_ticks(&mut app, 2);
    let Some(&Target::Entity(enemy)) = app.world().get::<Target>(unit) else {
        panic!("no enemy engaged: {:?}", app.world().get::<Target>(unit));
    };
    app.world().get::<AgentId>(enemy).expect("an enemy").0
}

#[test]
fn of_two_enemies_equally_near_a_unit_engages_the_one_with_the_lower_id() {
    for (order, padding) in [([10, 20], 0), ([20, 10], 0), ([20, 10], 7), ([10, 20], 3)] {
        assert_eq!(
            engaged_of_two_equally_near(order, padding),
            10,
            "{order:?} after {padding}"
        );
    }
}
