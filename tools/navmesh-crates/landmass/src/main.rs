//! The landmass side of the navmesh crate comparison: the town's mesh and queries the
//! polyanya side wrote into the directory given, 1,000 paths timed, and their lengths against
//! polyanya's (shortest) paths.
//!
//! Usage: `navmesh_crates_landmass DIR`

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use glam::Vec2;
use landmass::{
    Archipelago, ArchipelagoOptions, FromAgentRadius, Island, NavigationMesh, PathStep,
    PermittedAnimationLinks, Transform, XY,
};

/// Rounds of the 1,000, timed each.
const ROUNDS: usize = 7;
/// How far from the mesh a query's point may be and still be placed on it, in metres.
const SAMPLE_DISTANCE: f32 = 0.1;

/// The numbers on each line of `text`.
fn rows(text: &str) -> impl Iterator<Item = Vec<f32>> + '_ {
    text.lines()
        .map(|l| l.split(' ').map(|x| x.parse().expect("a number")).collect())
}

/// The mesh the polyanya side wrote: vertices, then polygons (counter-clockwise, convex).
fn read_mesh(text: &str) -> NavigationMesh<XY> {
    let lines: Vec<&str> = text.lines().collect();
    let count = |line: &str| -> usize { line.parse().expect("a count") };
    let vertices = count(lines[0]);
    let vertices: Vec<Vec2> = rows(&lines[1..=vertices].join("\n"))
        .map(|v| Vec2::new(v[0], v[1]))
        .collect();
    let first_polygon = vertices.len() + 2;
    let polygons: Vec<Vec<usize>> = lines[first_polygon..]
        .iter()
        .map(|l| l.split(' ').map(|x| x.parse().expect("an index")).collect())
        .collect();
    assert_eq!(polygons.len(), count(lines[first_polygon - 1]));
    NavigationMesh {
        vertices,
        polygon_type_indices: vec![0; polygons.len()],
        polygons,
        height_mesh: None,
    }
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .expect("usage: navmesh_crates_landmass DIR");
    let read = |name: &str| std::fs::read_to_string(format!("{dir}/{name}")).expect(name);
    let mesh = read_mesh(&read("town.mesh"));
    let queries: Vec<(Vec2, Vec2)> = rows(&read("town.queries"))
        .map(|q| (Vec2::new(q[0], q[1]), Vec2::new(q[2], q[3])))
        .collect();
    let shortest: Vec<f32> = rows(&read("polyanya.lengths")).map(|l| l[0]).collect();

    let started = Instant::now();
    let mesh = Arc::new(mesh.validate().expect("the town's mesh is valid"));
    let mut archipelago = Archipelago::<XY>::new(ArchipelagoOptions::from_agent_radius(0.5));
    let at_origin = Transform {
        translation: Vec2::ZERO,
        rotation: 0.0,
    };
    archipelago.add_island(Island::new(at_origin, mesh));
    archipelago.update(0.0);
    let built = started.elapsed();

    let costs = HashMap::new();
    let (mut totals, mut each, mut rounds) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let (mut checksum, mut lengths) = (0u64, Vec::new());
        let round = Instant::now();
        for &(a, b) in &queries {
            let one = Instant::now();
            let path = archipelago
                .sample_point(a, &SAMPLE_DISTANCE)
                .and_then(|from| {
                    let to = archipelago.sample_point(b, &SAMPLE_DISTANCE)?;
                    Ok(archipelago.find_path(&from, &to, &costs, PermittedAnimationLinks::All))
                });
            each.push(one.elapsed().as_secs_f64() * 1e6);
            let Ok(Ok(steps)) = path else {
                lengths.push(-1.0);
                continue;
            };
            let (mut at, mut length) = (a, 0.0);
            for step in &steps {
                if let PathStep::Waypoint(p) = step {
                    length += (*p - at).length();
                    at = *p;
                    checksum = checksum.rotate_left(5)
                        ^ u64::from(p.x.to_bits())
                        ^ (u64::from(p.y.to_bits()) << 32);
                }
            }
            lengths.push(length);
        }
        totals.push(round.elapsed().as_secs_f64() * 1e3);
        rounds.push((checksum, lengths));
    }
    let (checksum, lengths) = &rounds[0];
    let found: Vec<f32> = lengths.iter().copied().filter(|&l| l >= 0.0).collect();
    let mut longer: Vec<f32> = lengths
        .iter()
        .zip(&shortest)
        .filter(|&(&l, &s)| l >= 0.0 && s > 0.0)
        .map(|(l, s)| l / s)
        .collect();
    longer.sort_by(f32::total_cmp);
    totals.sort_by(f64::total_cmp);
    each.sort_by(f64::total_cmp);
    println!(
        "landmass 0.9.3: mesh validated and added in {:.1} ms; {} paths in {:.2} ms (median of \
         {ROUNDS} rounds, {:.2}-{:.2}); a path: median {:.1} us, 99th percentile {:.1} us, \
         longest {:.1} us; {} found, mean length {:.2} m; against polyanya's, median {:.4}, \
         mean {:.4}, most {:.3} times as long; checksum {checksum:016x}, the same every round: \
         {}",
        built.as_secs_f64() * 1e3,
        queries.len(),
        totals[ROUNDS / 2],
        totals[0],
        totals[ROUNDS - 1],
        each[each.len() / 2],
        each[each.len() * 99 / 100],
        each[each.len() - 1],
        found.len(),
        found.iter().sum::<f32>() / found.len() as f32,
        longer[longer.len() / 2],
        longer.iter().sum::<f32>() / longer.len() as f32,
        longer[longer.len() - 1],
        rounds.iter().all(|r| r.0 == *checksum),
    );
}
