//! Flocking against potential fields: what a tick of RTS squads costs when they flock and when they steer
//! by potential fields, on the same maps, as the map and the unit count grow.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_flock_plugin::PotentialField;
use bevy_flock_plugin::prelude::*;
use flock_core::Space;

use crate::harness::plugin_app;
use crate::workload::unit_generator;

/// Map sides in tiles.
const MAP_SIDES: [u32; 3] = [32, 64, 128];
/// Units of the player's (squads of [`SQUAD_SIZE`]); a quarter as many enemies besides.
const UNITS: [usize; 3] = [64, 256, 1024];
const SQUAD_SIZE: usize = 8;
/// Share of the map's inner tiles that are walls.
const WALL_SHARE: f32 = 0.15;
/// Ticks run before measuring: paths are planned on the first.
const WARM_UP_TICKS: usize = 16;

/// How the squads steer.
#[derive(Clone, Copy, PartialEq)]
enum Steering {
    Flocking,
    PotentialField,
}

/// One measured map and unit count.
pub struct SquadsRow {
    side: u32,
    units: usize,
    walls: usize,
    flocking: Duration,
    potential: Duration,
}

/// A seeded map of `side` x `side` tiles: walls round the edge and [`WALL_SHARE`] of the
/// inner tiles.
fn map(side: u32) -> Terrain {
    let mut terrain = Terrain::new(Vec2::splat(-(side as f32) / 2.0), 1.0, UVec2::splat(side));
    let mut unit = unit_generator(u64::from(side) * 7 + 1);
    for y in 0..side {
        for x in 0..side {
            let edge = x == 0 || y == 0 || x == side - 1 || y == side - 1;
            if edge || unit() < WALL_SHARE {
                terrain.set_walkable(UVec2::new(x, y), false);
            }
        }
    }
    terrain
}

/// A random walkable point of `terrain`.
fn walkable_point(terrain: &Terrain, unit: &mut impl FnMut() -> f32) -> Vec3 {
    loop {
        let size = terrain.size().as_vec2();
        let tile = (Vec2::new(unit(), unit()) * size).as_uvec2();
        if terrain.is_walkable(tile) {
            return terrain.centre(tile);
        }
    }
}

/// A planar app with the map, `units` units in squads sent to random points, and a quarter
/// as many idle enemies, warmed up.
fn squads_app(side: u32, units: usize, steering: Steering, cores: usize) -> App {
    let mut app = plugin_app(Space::Planar, cores);
    // Enemies are found by their global transforms: propagate them, as a game does.
    app.add_plugins((TransformPlugin, SquadsPlugin, TerrainPlugin));
    let terrain = map(side);
    let mut unit = unit_generator(u64::from(side) + units as u64);
    let tuning = FlockTuning::squad();
    for _ in 0..units / SQUAD_SIZE {
        let goal = walkable_point(&terrain, &mut unit);
        let mut squad = app.world_mut().spawn((Flock, tuning, Destination(goal)));
        if steering == Steering::PotentialField {
            squad.insert(PotentialField::default());
        }
        let squad = squad.id();
        let start = walkable_point(&terrain, &mut unit);
        for _ in 0..SQUAD_SIZE {
            app.world_mut().spawn((
                Agent,
                InFlock(squad),
                Transform::from_translation(start),
                Combatant {
                    team: 0,
                    radius: 0.35,
                    weapon_range: Some(4.0),
                    sight: 0.0,
                },
            ));
        }
    }
    for _ in 0..units / 4 {
        let at = walkable_point(&terrain, &mut unit);
        app.world_mut().spawn((
            Transform::from_translation(at),
            Combatant {
                team: 1,
                radius: 0.35,
                weapon_range: Some(4.0),
                sight: 0.0,
            },
        ));
    }
    app.insert_resource(terrain);
    app.finish();
    app.cleanup();
    for _ in 0..WARM_UP_TICKS {
        app.update();
    }
    app
}

/// The wall time of each of `ticks` updates of `app`.
fn time_updates(app: &mut App, ticks: usize) -> Vec<Duration> {
    (0..ticks)
        .map(|_| {
            let started = Instant::now();
            app.update();
            started.elapsed()
        })
        .collect()
}

/// The median whole update of `units` flocking units on the map of `side` tiles, if measured.
pub fn flocking_time(rows: &[SquadsRow], side: u32, units: usize) -> Option<Duration> {
    rows.iter()
        .find(|r| r.side == side && r.units == units)
        .map(|r| r.flocking)
}

/// Measures every map and unit count (or only `only_units`) both ways, pooling `rounds`
/// interleaved rounds of `ticks` ticks into medians.
pub fn measure(ticks: usize, rounds: usize, only_units: Option<usize>) -> Vec<SquadsRow> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut rows = Vec::new();
    for side in MAP_SIDES {
        for units in UNITS {
            if only_units.is_some_and(|n| n != units) {
                continue;
            }
            let mut flocking = squads_app(side, units, Steering::Flocking, cores);
            let mut potential = squads_app(side, units, Steering::PotentialField, cores);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for _ in 0..rounds {
                a.extend(time_updates(&mut flocking, ticks));
                b.extend(time_updates(&mut potential, ticks));
            }
            a.sort_unstable();
            b.sort_unstable();
            let terrain = flocking.world().resource::<Terrain>();
            let walls = (0..side * side)
                .filter(|k| !terrain.is_walkable(UVec2::new(k % side, k / side)))
                .count();
            rows.push(SquadsRow {
                side,
                units,
                walls,
                flocking: a[a.len() / 2],
                potential: b[b.len() / 2],
            });
        }
    }
    rows
}

impl SquadsRow {
    /// The row as printed while the benchmark runs.
    pub fn line(&self) -> String {
        format!(
            "squads {0}x{0} map ({1} wall tiles), {2} units: flocking {3:.3} ms, potential field {4:.3} ms ({5:.1}x)",
            self.side,
            self.walls,
            self.units,
            self.flocking.as_secs_f64() * 1e3,
            self.potential.as_secs_f64() * 1e3,
            self.potential.as_secs_f64() / self.flocking.as_secs_f64()
        )
    }
}

/// The report's section on squads.
pub fn section(rows: &[SquadsRow], ticks: usize, rounds: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## RTS squads: flocking against potential fields (plugin, 2D)\n\n\
         Seeded square maps ({:.0}% of the inner tiles walls): the player's units in squads of \
         {SQUAD_SIZE} sent to random points along A* paths, a \
         quarter as many idle enemies, every unit a `Combatant` with range 4. The same scene \
         flocks (squad tuning with standoffs) or steers by `PotentialField` (every wall tile, \
         squad-mate and enemy summed per unit). Whole app update, medians of {rounds} \
         interleaved rounds of {ticks} ticks after {WARM_UP_TICKS} of warm-up. Potential-field \
         units still pass through the kernel, whose force the field then replaces, so the \
         difference is the fields' own cost.\n\n\
         | map | wall tiles | units | flocking ms | potential field ms | difference ms | potential / flocking |\n\
         |---|---:|---:|---:|---:|---:|---:|",
        WALL_SHARE * 100.0
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {0} x {0} | {1} | {2} | {3:.3} | {4:.3} | {5:.3} | {6:.1} |",
            r.side,
            r.walls,
            r.units,
            r.flocking.as_secs_f64() * 1e3,
            r.potential.as_secs_f64() * 1e3,
            (r.potential.as_secs_f64() - r.flocking.as_secs_f64()) * 1e3,
            r.potential.as_secs_f64() / r.flocking.as_secs_f64()
        );
    }
    out
}
