//! The flocking lab's observations, on the lab's tuning ([`FlockTuning::flocking_lab`]):
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
    lab_app_seeded(2, tune)
}

/// [`lab_app`] with the boids placed by the random sequence of `seed`.
fn lab_app_seeded(seed: u64, tune: impl FnOnce(&mut FlockTuning)) -> App {
    let mut app = create_test_app(FlockingPlugins::default().planar());
    let mut tuning = FlockTuning::flocking_lab();
    tune(&mut tuning);
    tune_default_flock(&mut app, tuning);
    let mut rng = Rng::new(seed);
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
    run_lab_seeded(2, seconds, tune)
}

/// [`run_lab`] with the boids placed by the random sequence of `seed`.
fn run_lab_seeded(seed: u64, seconds: u32, tune: impl FnOnce(&mut FlockTuning)) -> LabRun {
    let mut app = lab_app_seeded(seed, tune);
    let mut polarisation = Vec::new();
    for _ in 0..seconds {
        run_ticks(&mut app, 64);
        polarisation.push(app.world().resource::<FlockMetrics>().polarisation);
    }
    LabRun {
        polarisation,
        positions: positions(&mut app),
    }
}

/// Groups of boids: connected components of the graph that links boids within `link` of each
/// other (across the wrapping edges too), with at least `smallest` members.
fn groups(positions: &[Vec3], link: f32, smallest: usize) -> usize {
    group_sizes(positions, link)
        .into_iter()
        .filter(|&s| s >= smallest)
        .count()
}

/// The sizes of the groups [`groups`] counts, largest first.
fn group_sizes(positions: &[Vec3], link: f32) -> Vec<usize> {
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
    sizes.retain(|&s| s > 0);
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    sizes
}

/// Boids within the vision radius of one another with the boids spread evenly: density
/// 1,500 / (900 x 560) times the area of a circle of radius 50, about 23.
fn uniform_neighbours(radius: f32) -> f32 {
    BOIDS as f32 / (4.0 * HALF_FIELD.x * HALF_FIELD.y) * std::f32::consts::PI * radius * radius
}

#[test]
fn the_lab_birds_order_above_point_nine() {
    // Three placements of the boids, since when flocks meet the order dips for a second or two.
    // Measured over seeds 2 to 9: 0.03 to 0.43 after a second, 0.90 to 0.97 at best, and from
    // 10 s on 0.87 to 0.94 on average, dipping to 0.81 at worst (the lab's definition, run
    // beside the library in `lab_reference`, gives the same to within 0.06).
    for seed in [2, 3, 4] {
        let birds = run_lab_seeded(seed, 15, |_| {});
        let p = &birds.polarisation;
        assert!(p[0] < 0.5, "seed {seed}: {p:?}");
        assert!(birds.highest() > 0.9, "seed {seed}: {p:?}");
        let ordered = &p[10..];
        let mean = ordered.iter().sum::<f32>() / ordered.len() as f32;
        assert!(mean > 0.85, "seed {seed} did not stay ordered: {p:?}");
        assert!(
            ordered.iter().all(|&p| p > 0.75),
            "seed {seed} fell out of order: {p:?}"
        );
    }
}

#[test]
fn without_alignment_the_lab_boids_stay_clumped_but_point_every_way() {
    // The lab's experiment: let the birds order, then turn alignment off.
    let mut app = lab_app(|_| {});
    run_ticks(&mut app, 15 * 64);
    let ordered = app.world().resource::<FlockMetrics>().polarisation;
    let flock = **app.world().resource::<DefaultFlock>();
    app.world_mut()
        .get_mut::<FlockWeights>(flock)
        .expect("the default flock has weights")
        .alignment = 0.0;
    let mut after = Vec::new();
    for _ in 0..10 {
        run_ticks(&mut app, 32);
        after.push(app.world().resource::<FlockMetrics>().polarisation);
    }
    // Measured: 0.91, then 0.54 a second later, 0.27 after 2 s and 0.22 to 0.26 after that.
    // Random headings would give about 1 / sqrt(1500) = 0.03: the clumps keep some common drift.
    assert!(ordered > 0.85, "the birds did not order first: {ordered}");
    assert!(
        after[3..].iter().all(|&p| p < 0.35),
        "{ordered} -> {after:?}: did not fall sharply"
    );
    // Measured 76 neighbours each, where an even spread gives 23.
    let neighbours = app.world().resource::<FlockMetrics>().mean_neighbours;
    assert!(
        neighbours > 1.4 * uniform_neighbours(50.0),
        "{neighbours} neighbours each: not clumped"
    );
}

#[test]
fn alignment_alone_orders_the_lab_boids() {
    let run = run_lab(10, |t| {
        t.weights.cohesion = 0.0;
        t.weights.separation = 0.0;
    });
    // Measured: 0.30 after a second, 0.93 after 6, 0.99 after 10. Under the lab's definition
    // the boids also gather (133 neighbours each after 15 s, against 23 spread evenly): streams
    // that cross turn to their common heading and fly on together.
    assert!(run.polarisation[0] < 0.5, "{:?}", run.polarisation);
    assert!(run.last() > 0.9, "did not order: {:?}", run.polarisation);
}

#[test]
fn the_vision_radius_sets_how_many_groups_form() {
    let run_with = |radius: f32| {
        run_lab(3, |t| {
            t.perception.neighbour_radius = radius;
            t.perception.separation_radius = t.perception.separation_radius.min(radius);
        })
    };
    // After 3 s. Measured: with a vision radius of 10, 59 groups of 5 or more boids that see
    // one another, polarisation 0.21; with 150, one group (boids within 30 of one another)
    // and 0.99. The narrow groups still merge and align in the end (0.96 after 20 s here and
    // in the lab's definition alike): vision sets how fast order spreads.
    let narrow = run_with(10.0);
    let wide = run_with(150.0);
    let narrow_groups = groups(&narrow.positions, 10.0, 5);
    let wide_largest = group_sizes(&wide.positions, 30.0)[0];
    assert!(
        narrow_groups >= 20,
        "{narrow_groups} groups with a vision radius of 10"
    );
    assert!(
        wide_largest >= BOIDS * 95 / 100,
        "the largest group with a vision radius of 150 had {wide_largest} boids"
    );
    assert!(
        narrow.last() < 0.4 && wide.last() > 0.9,
        "{} vs {}",
        narrow.last(),
        wide.last()
    );
}

/// The boids' centre on the wrapping field: the circular mean of their positions along each
/// axis.
fn centre_on_torus(positions: &[Vec3]) -> Vec3 {
    let size = HALF_FIELD * 2.0;
    let (mut cos, mut sin) = (Vec2::ZERO, Vec2::ZERO);
    for p in positions {
        let angle = (p.truncate() + HALF_FIELD) / size * std::f32::consts::TAU;
        cos += Vec2::new(ops::cos(angle.x), ops::cos(angle.y));
        sin += Vec2::new(ops::sin(angle.x), ops::sin(angle.y));
    }
    let angle = Vec2::new(ops::atan2(sin.x, cos.x), ops::atan2(sin.y, cos.y));
    ((angle / std::f32::consts::TAU).rem_euclid(Vec2::ONE) * size - HALF_FIELD).extend(0.0)
}

#[test]
fn a_predator_clears_a_hole_in_the_lab_flock_which_closes_once_it_goes() {
    let mut app = lab_app(|_| {});
    // The birds form one ordered flock within 15 s (see the first test).
    run_ticks(&mut app, 15 * 64);
    let ordered = app.world().resource::<FlockMetrics>().polarisation;
    // The lab's experiment: hold the predator in the middle of the flock, then let go.
    let centre = centre_on_torus(&positions(&mut app));
    let within_reach = |positions: &[Vec3]| {
        let size = HALF_FIELD * 2.0;
        positions
            .iter()
            .filter(|p| {
                let d = (**p - centre).truncate().abs();
                d.min(size - d).length() < 160.0
            })
            .count()
    };
    let at_first = within_reach(&positions(&mut app));
    let predator = app
        .world_mut()
        .spawn((
            Predator { radius: 160.0 },
            Transform::from_translation(centre),
        ))
        .id();
    let mut least_order = ordered;
    for _ in 0..8 {
        run_ticks(&mut app, 32);
        least_order = least_order.min(app.world().resource::<FlockMetrics>().polarisation);
    }
    let at_release = within_reach(&positions(&mut app));
    app.world_mut().despawn(predator);
    let mut rejoined_after = None;
    for half_seconds in 1..=16 {
        run_ticks(&mut app, 32);
        if rejoined_after.is_none()
            && group_sizes(&positions(&mut app), 30.0)[0] >= BOIDS * 99 / 100
        {
            rejoined_after = Some(half_seconds as f32 / 2.0);
        }
    }
    let order = app.world().resource::<FlockMetrics>().polarisation;
    // Measured: 779 boids within its reach at first, 29 after 4 s, the flock parted round it
    // (still linked within 30 px: under the lab's rules the halves stay in touch at the rim);
    // polarisation 0.91 -> 0.72 while it was there; one group of 99% 1 s after it went, and
    // 0.90 after 8 s.
    assert!(
        at_release * 10 < at_first,
        "{at_first} within reach at first, {at_release} after 4 s: they did not flee"
    );
    assert!(
        least_order < ordered - 0.1,
        "the predator did not disturb the flock: polarisation {ordered} -> {least_order}"
    );
    let rejoined_after = rejoined_after.expect("the flock did not rejoin within 8 s");
    assert!(
        rejoined_after <= 4.0,
        "rejoined only after {rejoined_after} s"
    );
    assert!(
        order > 0.8,
        "polarisation {order} 8 s after the predator went"
    );
}
