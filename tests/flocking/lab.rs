//! Seed 002's flocking lab observations, on the lab's tuning ([`FlockTuning::flocking_lab`]):
//! 1,500 boids wrapping round a 900 x 560 field.

use bevy::prelude::*;
use bevy_flock::prelude::*;

use crate::support::*;

const BOIDS: usize = 1_500;
const HALF_FIELD: Vec2 = Vec2::new(450.0, 280.0);

/// What a run of the lab showed: polarisation each second, and where the boids ended.
struct LabRun {
    polarisation: Vec<f32>,
    positions: Vec<Vec3>,
    mean_neighbours: f32,
}

impl LabRun {
    fn last(&self) -> f32 {
        *self.polarisation.last().expect("ran")
    }

    fn highest(&self) -> f32 {
        self.polarisation.iter().copied().fold(0.0, f32::max)
    }
}

/// The lab with its tuning changed by `tune`, boids at seeded random places and headings at
/// speed 120.
fn lab_app(tune: impl FnOnce(&mut FlockTuning)) -> App {
    let mut app = create_test_app(FlockingPlugin::default().planar());
    let mut tuning = FlockTuning::flocking_lab();
    tune(&mut tuning);
    tune_default_flock(&mut app, tuning);
    let mut rng = Rng::new(2);
    for _ in 0..BOIDS {
        let p = Vec3::new(
            (rng.unit() * 2.0 - 1.0) * HALF_FIELD.x,
            (rng.unit() * 2.0 - 1.0) * HALF_FIELD.y,
            0.0,
        );
        let angle = rng.unit() * std::f32::consts::TAU;
        let v = Vec3::new(ops::cos(angle), ops::sin(angle), 0.0) * 120.0;
        app.world_mut()
            .spawn((Agent, Transform::from_translation(p), Velocity(v)));
    }
    app
}

/// Runs the lab for `seconds` with its tuning changed by `tune` (see [`lab_app`]).
fn run_lab(seconds: u32, tune: impl FnOnce(&mut FlockTuning)) -> LabRun {
    let mut app = lab_app(tune);
    let mut polarisation = Vec::new();
    for _ in 0..seconds {
        run_ticks(&mut app, 64);
        polarisation.push(app.world().resource::<FlockMetrics>().polarisation);
    }
    LabRun {
        polarisation,
        mean_neighbours: app.world().resource::<FlockMetrics>().mean_neighbours,
        positions: positions(&mut app),
    }
}

/// Groups of boids: connected components of the graph that links boids within `link` of each
/// other (across the wrapping edges too), with at least `smallest` members.
fn groups(positions: &[Vec3], link: f32, smallest: usize) -> usize {
    let mut parent: Vec<usize> = (0..positions.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let size = HALF_FIELD * 2.0;
    for i in 0..positions.len() {
        for j in i + 1..positions.len() {
            let d = (positions[i] - positions[j]).truncate().abs();
            let d = d.min(size - d);
            if d.length_squared() <= link * link {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                parent[a] = b;
            }
        }
    }
    let mut sizes = vec![0; positions.len()];
    for i in 0..positions.len() {
        sizes[root(&mut parent, i)] += 1;
    }
    sizes.into_iter().filter(|&s| s >= smallest).count()
}

/// Boids within the vision radius of one another with the boids spread evenly: density
/// 1,500 / (900 x 560) times the area of a circle of radius 50, about 23.
fn uniform_neighbours(radius: f32) -> f32 {
    BOIDS as f32 / (4.0 * HALF_FIELD.x * HALF_FIELD.y) * std::f32::consts::PI * radius * radius
}

#[test]
fn the_lab_birds_order_above_point_nine() {
    let birds = run_lab(15, |_| {});
    // Measured: 0.04 after a second, 0.88 after 10, 0.99 from 12 on.
    assert!(birds.polarisation[0] < 0.1, "{:?}", birds.polarisation);
    assert!(birds.last() > 0.9, "{:?}", birds.polarisation);
}

#[test]
fn without_alignment_the_lab_boids_stay_clumped_but_point_every_way() {
    let run = run_lab(15, |t| t.weights.alignment = 0.0);
    // Random headings give about 1 / sqrt(1500) = 0.03; measured at most 0.06.
    assert!(run.highest() < 0.15, "{:?}", run.polarisation);
    // Measured 40 neighbours each, where an even spread gives 23.
    assert!(
        run.mean_neighbours > 1.4 * uniform_neighbours(50.0),
        "{} neighbours each: not clumped",
        run.mean_neighbours
    );
}

#[test]
fn alignment_alone_orders_the_lab_boids_slowly() {
    let run = run_lab(20, |t| {
        t.weights.cohesion = 0.0;
        t.weights.separation = 0.0;
    });
    // Measured: 0.11 after a second, 0.32 after 10, 0.42 after 20 (the birds: 0.88 and 0.99).
    let after_ten = run.polarisation[9];
    assert!(after_ten < 0.6, "ordered too fast: {:?}", run.polarisation);
    assert!(
        run.last() > run.polarisation[0] + 0.2,
        "did not order: {:?}",
        run.polarisation
    );
}

#[test]
fn the_vision_radius_sets_how_many_groups_form() {
    let groups_with = |radius: f32| {
        let run = run_lab(20, |t| {
            t.perception.neighbour_radius = radius;
            t.perception.separation_radius = t.perception.separation_radius.min(radius);
        });
        (groups(&run.positions, 30.0, 5), run.last())
    };
    // Measured: 8 groups of 5 or more at radius 10 (polarisation 0.44), 1 at radius 150 (0.99).
    let (narrow, narrow_order) = groups_with(10.0);
    let (wide, wide_order) = groups_with(150.0);
    assert!(narrow >= 5, "{narrow} groups with a vision radius of 10");
    assert!(wide <= 2, "{wide} groups with a vision radius of 150");
    assert!(
        narrow_order < 0.7 && wide_order > 0.9,
        "{narrow_order} vs {wide_order}"
    );
}
