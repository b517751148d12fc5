//! The polyanya side of the navmesh crate comparison: builds the town's mesh from its outline
//! and buildings, writes the mesh and 1,000 queries for the landmass side into the directory
//! given, and times the 1,000 paths.
//!
//! Usage: `navmesh_crates_polyanya DIR`

use std::fmt::Write as _;
use std::time::Instant;

use glam::Vec2;
use polyanya::{Mesh, Triangulation};

/// The town's side, in metres.
const SIZE: f32 = 240.0;
/// A block and the street beside it.
const PITCH: f32 = 24.0;
/// Paths asked for.
const QUERIES: usize = 1000;
/// Rounds of the 1,000, timed each.
const ROUNDS: usize = 7;

/// A seeded draw in [0, 1) (a 64-bit linear congruential generator), the same on any machine.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// The axis-aligned rectangle from `(x0, y0)` to `(x1, y1)`, counter-clockwise.
fn rectangle(x0: f32, y0: f32, x1: f32, y1: f32) -> Vec<Vec2> {
    vec![
        Vec2::new(x0, y0),
        Vec2::new(x1, y0),
        Vec2::new(x1, y1),
        Vec2::new(x0, y1),
    ]
}

/// A rectangle of half-extents `half` about `centre`, turned by `angle` radians.
fn turned(centre: Vec2, half: Vec2, angle: f32) -> Vec<Vec2> {
    let turn = Vec2::from_angle(angle);
    [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        .iter()
        .map(|&(a, b)| centre + turn.rotate(Vec2::new(a * half.x, b * half.y)))
        .collect()
}

/// The town: 10 x 10 blocks of 16 m with 8 m streets; a square where four blocks are left
/// open; three blocks in ten split by a 2 m alley one way, two in ten the other way; a quarter
/// of them a smaller building turned by up to 23 degrees; the rest built whole.
fn buildings(draw: &mut Draw) -> Vec<Vec<Vec2>> {
    let mut out = Vec::new();
    for i in 0..10 {
        for j in 0..10 {
            if (4..6).contains(&i) && (4..6).contains(&j) {
                continue;
            }
            let (x0, y0) = (PITCH * i as f32 + 4.0, PITCH * j as f32 + 4.0);
            let (x1, y1) = (x0 + 16.0, y0 + 16.0);
            let roll = draw.next();
            if roll < 0.3 {
                out.push(rectangle(x0, y0, x0 + 7.0, y1));
                out.push(rectangle(x0 + 9.0, y0, x1, y1));
            } else if roll < 0.5 {
                out.push(rectangle(x0, y0, x1, y0 + 7.0));
                out.push(rectangle(x0, y0 + 9.0, x1, y1));
            } else if roll < 0.75 {
                let centre = Vec2::new(x0 + 8.0, y0 + 8.0);
                let angle = (draw.next() - 0.5) * 0.8;
                out.push(turned(centre, Vec2::new(6.0, 5.0), angle));
            } else {
                out.push(rectangle(x0, y0, x1, y1));
            }
        }
    }
    out
}

/// `QUERIES` pairs of points, each half a metre clear of every wall: a point the mesh's search
/// snaps onto the walkable surface from just inside a building is no fair query.
fn queries(mesh: &Mesh, draw: &mut Draw) -> Vec<(Vec2, Vec2)> {
    let clear =
        |p: Vec2| (0..8).all(|k| mesh.point_in_mesh(p + Vec2::from_angle(k as f32 * 0.785) * 0.5));
    let mut out = Vec::new();
    while out.len() < QUERIES {
        let a = Vec2::new(draw.next() * SIZE, draw.next() * SIZE);
        let b = Vec2::new(draw.next() * SIZE, draw.next() * SIZE);
        if clear(a) && clear(b) {
            out.push((a, b));
        }
    }
    out
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .expect("usage: navmesh_crates_polyanya DIR");
    let mut draw = Draw(7);
    let started = Instant::now();
    let mut triangulation = Triangulation::from_outer_edges(&rectangle(0.0, 0.0, SIZE, SIZE));
    triangulation.add_obstacles(buildings(&mut draw));
    let mut mesh: Mesh = triangulation.as_navmesh();
    mesh.bake();
    let built = started.elapsed();
    let layer = &mesh.layers[0];
    let mut text = format!("{}\n", layer.vertices.len());
    for v in &layer.vertices {
        let _ = writeln!(text, "{} {}", v.coords.x, v.coords.y);
    }
    let _ = writeln!(text, "{}", layer.polygons.len());
    for p in &layer.polygons {
        let ids: Vec<String> = p.vertices.iter().map(u32::to_string).collect();
        let _ = writeln!(text, "{}", ids.join(" "));
    }
    std::fs::write(format!("{dir}/town.mesh"), text).expect("mesh written");
    let queries = queries(&mesh, &mut draw);
    let text: String = queries
        .iter()
        .map(|(a, b)| format!("{} {} {} {}\n", a.x, a.y, b.x, b.y))
        .collect();
    std::fs::write(format!("{dir}/town.queries"), text).expect("queries written");

    let (mut totals, mut each, mut rounds) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let (mut checksum, mut lengths) = (0u64, Vec::new());
        let round = Instant::now();
        for &(a, b) in &queries {
            let one = Instant::now();
            let path = mesh.path(a, b);
            each.push(one.elapsed().as_secs_f64() * 1e6);
            lengths.push(path.as_ref().map_or(-1.0, |p| p.length));
            for p in path.iter().flat_map(|p| &p.path) {
                checksum = checksum.rotate_left(5)
                    ^ u64::from(p.x.to_bits())
                    ^ (u64::from(p.y.to_bits()) << 32);
            }
        }
        totals.push(round.elapsed().as_secs_f64() * 1e3);
        rounds.push((checksum, lengths));
    }
    let (checksum, lengths) = &rounds[0];
    let text: String = lengths.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(format!("{dir}/polyanya.lengths"), text).expect("lengths written");
    let found: Vec<f32> = lengths.iter().copied().filter(|&l| l >= 0.0).collect();
    totals.sort_by(f64::total_cmp);
    each.sort_by(f64::total_cmp);
    println!(
        "polyanya 0.18.0: mesh of {} vertices and {} polygons built in {:.1} ms; {QUERIES} \
         paths in {:.2} ms (median of {ROUNDS} rounds, {:.2}-{:.2}); a path: median {:.1} us, \
         99th percentile {:.1} us, longest {:.1} us; {} found, mean length {:.2} m; checksum \
         {checksum:016x}, the same every round: {}",
        layer.vertices.len(),
        layer.polygons.len(),
        built.as_secs_f64() * 1e3,
        totals[ROUNDS / 2],
        totals[0],
        totals[ROUNDS - 1],
        each[each.len() / 2],
        each[each.len() * 99 / 100],
        each[each.len() - 1],
        found.len(),
        found.iter().sum::<f32>() / found.len() as f32,
        rounds.iter().all(|r| r.0 == *checksum),
    );
}
