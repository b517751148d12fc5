//! RTS squads, top down: two squads cross a walled map along A* paths, settle into
//! a formation where they are sent, and engage the red enemy group: a unit that sees an enemy
//! on its way goes for it and holds at its weapon's range, as RTS units do.
//!
//! Run with `cargo run --features examples --example rts_squads`.
//! Drag with the left mouse button to select units (their squads), right-click to send the
//! selected squads there. Hover a unit to see its weapon's range. Until you give an order, the
//! squads are sent on their own.

use bevy::camera::ScalingMode;
use bevy::prelude::*;
use bevy_flock::prelude::*;
use bevy_flock::{PlannedPath, SUPPORT_MARGIN};

#[path = "support/capture.rs"]
mod capture;

/// The map: `#` is a wall tile, anything else open ground. One tile is one world unit.
const MAP: [&str; 22] = [
    "########################################",
    "#......................#...............#",
    "#......................#...............#",
    "#.....######...........#......####.....#",
    "#.....#................#.........#.....#",
    "#.....#.........................##.....#",
    "#.....#................................#",
    "#.....########.........................#",
    "#................#######...............#",
    "#................#.....................#",
    "#................#.........#############",
    "#######..........#.....................#",
    "#................#.....................#",
    "#................#####.................#",
    "#..........................######......#",
    "#...............................#......#",
    "#.....#####.....................#......#",
    "#.........#.........#...........#......#",
    "#.........#.........#..................#",
    "#.........#.........#..................#",
    "#......................................#",
    "########################################",
];
/// Where the map's lowest corner is, so that it is centred on the origin.
const MAP_ORIGIN: Vec2 = Vec2::new(-20.0, -11.0);
/// How long the squads wait for an order before they are sent on their own, in seconds.
const IDLE_SECONDS: f32 = 1.0;

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_flock: rts_squads".into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((
            FlockingPlugins::default().planar(),
            SquadsPlugin,
            TerrainPlugin,
            capture::CapturePlugin,
        ))
        .insert_resource(ClearColor(Color::srgb(0.08, 0.09, 0.1)))
        .insert_resource(Terrain::from_rows(MAP_ORIGIN, 1.0, &MAP))
        .init_resource::<Selection>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                select_with_a_box,
                order_a_move,
                send_on_their_own,
                draw_overlay,
                show_status,
            ),
        )
        .run();
}

/// The box being dragged, if any, in world space; and whether the player has given an order.
#[derive(Resource, Default)]
struct Selection {
    drag_from: Option<Vec2>,
    ordered: bool,
}

/// A unit the player selected.
#[derive(Component)]
struct Selected;

/// A unit of the player's.
#[derive(Component)]
struct PlayerUnit;

/// Where a squad goes when sent on its own.
#[derive(Component)]
struct DemoGoal(Vec3);

#[derive(Component)]
struct StatusText;

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
    terrain: Res<Terrain>,
) {
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scaling_mode: ScalingMode::FixedVertical {
                viewport_height: 25.0,
            },
            ..OrthographicProjection::default_2d()
        }),
        Transform::from_xyz(0.0, 1.2, 0.0),
    ));

    // The ground, and a block for each wall tile.
    let size = terrain.size().as_vec2();
    commands.spawn((
        Mesh2d(meshes.add(Rectangle::from_size(size))),
        MeshMaterial2d(materials.add(Color::srgb(0.2, 0.23, 0.2))),
        Transform::from_translation((MAP_ORIGIN + size / 2.0).extend(-2.0)),
    ));
    let tile = meshes.add(Rectangle::from_size(Vec2::splat(1.0)));
    let wall = materials.add(Color::srgb(0.46, 0.44, 0.4));
    for y in 0..terrain.size().y {
        for x in 0..terrain.size().x {
            let cell = UVec2::new(x, y);
            if !terrain.is_walkable(cell) {
                commands.spawn((
                    Mesh2d(tile.clone()),
                    MeshMaterial2d(wall.clone()),
                    Transform::from_translation(terrain.centre(cell).with_z(-1.0)),
                ));
            }
        }
    }

    // Two squads of the player's: ranged (blue) and melee (green). They keep apart, hold
    // together a little and keep their standoff from enemies.
    let squad = FlockTuning::squad();
    let squad_tuning = FlockTuning {
        weights: FlockWeights {
            collision_avoidance: 1.0,
            ..squad.weights
        },
        ..squad
    };
    let body = meshes.add(Circle::new(0.35));
    let squads = [
        (
            "Ranged squad",
            Color::srgb(0.3, 0.6, 1.0),
            Some(5.0),
            Vec2::new(-18.5, 9.5),
            Vec3::new(14.5, -8.5, 0.0),
        ),
        (
            "Melee squad",
            Color::srgb(0.4, 0.85, 0.4),
            Some(1.5),
            Vec2::new(-18.5, -8.5),
            Vec3::new(16.5, 7.5, 0.0),
        ),
    ];
    for (name, colour, weapon_range, corner, goal) in squads {
        let squad = commands
            .spawn((Flock, Name::new(name), squad_tuning, DemoGoal(goal)))
            .id();
        let material = materials.add(colour);
        for k in 0..8 {
            let at = corner + Vec2::new((k % 4) as f32, -((k / 4) as f32)) * 1.1;
            commands.spawn((
                Agent,
                InFlock(squad),
                PlayerUnit,
                Combatant {
                    team: 0,
                    radius: 0.35,
                    weapon_range,
                    sight: 6.0,
                },
                Transform::from_translation(at.extend(0.0)),
                Mesh2d(body.clone()),
                MeshMaterial2d(material.clone()),
            ));
        }
    }

    // The enemy: a red group holding its ground; they only keep apart.
    let enemies = commands
        .spawn((
            Flock,
            Name::new("Enemies"),
            FlockWeights {
                separation: 1.8,
                alignment: 0.0,
                cohesion: 0.0,
                target: 0.0,
                standoff: 0.0,
                ..default()
            },
        ))
        .id();
    let red = materials.add(Color::srgb(0.95, 0.3, 0.25));
    for k in 0..6 {
        let at = Vec2::new(6.0 + (k % 3) as f32 * 1.2, -2.0 + (k / 3) as f32 * 1.2);
        commands.spawn((
            Agent,
            InFlock(enemies),
            Combatant {
                team: 1,
                radius: 0.35,
                weapon_range: Some(4.0),
                sight: 6.0,
            },
            Transform::from_translation(at.extend(0.0)),
            Mesh2d(body.clone()),
            MeshMaterial2d(red.clone()),
        ));
    }

    commands.spawn((
        StatusText,
        Text::new(""),
        TextFont::from_font_size(14.0),
        TextColor(Color::srgb(0.85, 0.87, 0.9)),
        Node {
            position_type: PositionType::Absolute,
            left: px(10),
            top: px(8),
            ..default()
        },
    ));
}

/// The cursor's place in the world, if it is over the window.
fn cursor_in_world(window: &Window, camera: (&Camera, &GlobalTransform)) -> Option<Vec2> {
    let cursor = window.cursor_position()?;
    camera.0.viewport_to_world_2d(camera.1, cursor).ok()
}

/// Left-drag a box to select the units in it; a click selects the nearest unit. Selecting a
/// unit selects its whole squad, since squads move as one.
fn select_with_a_box(
    mut commands: Commands,
    mouse: Res<ButtonInput<MouseButton>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    mut selection: ResMut<Selection>,
    units: Query<(Entity, &Transform, &InFlock), With<PlayerUnit>>,
    selected: Query<Entity, With<Selected>>,
) {
    let Some(cursor) = cursor_in_world(&window, *camera) else {
        return;
    };
    if mouse.just_pressed(MouseButton::Left) {
        selection.drag_from = Some(cursor);
    }
    if !mouse.just_released(MouseButton::Left) {
        return;
    }
    let Some(from) = selection.drag_from.take() else {
        return;
    };
    let (low, high) = (from.min(cursor) - 0.4, from.max(cursor) + 0.4);
    let squads: Vec<Entity> = units
        .iter()
        .filter(|(_, t, _)| {
            let p = t.translation.truncate();
            p.cmpge(low).all() && p.cmple(high).all()
        })
        .map(|(_, _, squad)| squad.0)
        .collect();
    for entity in &selected {
        commands.entity(entity).remove::<Selected>();
    }
    for (entity, _, squad) in &units {
        if squads.contains(&squad.0) {
            commands.entity(entity).insert(Selected);
        }
    }
}

/// Right-click sends the selected squads to the cursor, across the terrain.
fn order_a_move(
    mut commands: Commands,
    mouse: Res<ButtonInput<MouseButton>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    mut selection: ResMut<Selection>,
    selected: Query<&InFlock, With<Selected>>,
) {
    if !mouse.just_pressed(MouseButton::Right) {
        return;
    }
    let Some(cursor) = cursor_in_world(&window, *camera) else {
        return;
    };
    for squad in &selected {
        commands
            .entity(squad.0)
            .insert(Destination(cursor.extend(0.0)));
    }
    selection.ordered |= !selected.is_empty();
}

/// Until the player gives an order, sends each squad to its demo goal after a moment.
fn send_on_their_own(
    mut commands: Commands,
    time: Res<Time>,
    selection: Res<Selection>,
    squads: Query<(Entity, &DemoGoal), Without<Destination>>,
) {
    if selection.ordered || time.elapsed_secs() < IDLE_SECONDS {
        return;
    }
    for (squad, goal) in &squads {
        commands.entity(squad).insert(Destination(goal.0));
    }
}

/// The selection box, rings round selected units and their paths, and the weapon range of the
/// unit under the cursor.
fn draw_overlay(
    mut gizmos: Gizmos,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    selection: Res<Selection>,
    selected: Query<(&Transform, &PlannedPath), With<Selected>>,
    units: Query<(&Transform, &Combatant)>,
    flocks: Query<&Formation>,
) {
    let cursor = cursor_in_world(&window, *camera);
    if let (Some(from), Some(to)) = (selection.drag_from, cursor) {
        gizmos.rect_2d((from + to) / 2.0, (to - from).abs(), Color::WHITE);
    }
    for (transform, path) in &selected {
        let at = transform.translation.truncate();
        gizmos.circle_2d(at, 0.5, Color::srgb(1.0, 0.95, 0.5));
        let mut from = at;
        for waypoint in path.waypoints.iter().skip(path.next) {
            gizmos.line_2d(
                from,
                waypoint.truncate(),
                Color::srgba(1.0, 0.95, 0.5, 0.35),
            );
            from = waypoint.truncate();
        }
    }
    // Where each squad's members will stand.
    for formation in &flocks {
        for (_, place) in &formation.places {
            gizmos.circle_2d(place.truncate(), 0.15, Color::srgba(1.0, 1.0, 1.0, 0.3));
        }
    }
    let Some(cursor) = cursor else {
        return;
    };
    let hovered = units
        .iter()
        .map(|(t, c)| (t.translation.truncate(), c))
        .filter(|(p, _)| p.distance(cursor) < 0.6)
        .min_by(|a, b| a.0.distance(cursor).total_cmp(&b.0.distance(cursor)));
    if let Some((at, unit)) = hovered {
        match unit.weapon_range {
            Some(range) => {
                gizmos.circle_2d(at, range, Color::srgb(1.0, 0.5, 0.4));
            }
            None => {
                gizmos.circle_2d(at, SUPPORT_MARGIN, Color::srgb(0.6, 0.6, 0.6));
            }
        }
    }
}

fn show_status(
    metrics: Res<FlockMetrics>,
    selected: Query<(), With<Selected>>,
    mut text: Single<&mut Text, With<StatusText>>,
) {
    text.0 = format!(
        "Left-drag: select squads   right-click: send them there   hover a unit: its weapon range\n\
         units {}   selected {}   step {:.2} ms",
        metrics.agents,
        selected.iter().count(),
        metrics.step_time.as_secs_f64() * 1000.0,
    );
}
