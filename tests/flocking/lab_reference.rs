//! The flocking lab's tuning ([`FlockTuning::flocking_lab`]) run side by side with an
//! independent, straightforward implementation of the lab's definition written here, from the
//! same seeded start: the polarisation over time must agree.
//!
//! The lab's definition (Reynolds 1987 boids on a 900 x 560 field that wraps round, 60 frames
//! a second): each rule gives a desired direction (separation: away from the neighbours within
//! 20 px, each weighted by the inverse square of its distance; alignment: the neighbours' mean
//! velocity; cohesion: their mean offset), all within a vision radius of 50 px. The velocity
//! change that would fly at max speed (180 px/s) that way, `desired - v`, is cut to max speed / 30,
//! multiplied by the rule's weight (separation x 1.5 more) and added to the velocity, which is
//! then kept between a third of max speed and max speed.

use bevy::prelude::*;
use bevy_flock::prelude::*;

use crate::support::*;

const BOIDS: usize = 1_500;
const FIELD: Vec2 = Vec2::new(900.0, 560.0);
const MAX_SPEED: f32 = 180.0;
const VISION: f32 = 50.0;
const SEPARATION_RADIUS: f32 = 20.0;
const FPS: u32 = 60;
const SECONDS: usize = 15;
const SEEDS: u64 = 6;

/// Slider weights of separation, alignment and cohesion.
#[derive(Clone, Copy)]
struct Sliders {
    separation: f32,
    alignment: f32,
    cohesion: f32,
}

/// The lab's definition, stepped one frame at a time; neighbours found through cells of at
/// least the vision radius, as the lab does.
struct LabReference {
    positions: Vec<Vec2>,
    velocities: Vec<Vec2>,
    sliders: Sliders,
    vision: f32,
}

impl LabReference {
    /// The offset from `from` to `to` across the wrapping edges, each axis in `-size/2..size/2`.
    fn offset(from: Vec2, to: Vec2) -> Vec2 {
        let d = to - from;
        d - (d / FIELD).round() * FIELD
    }

    /// `desired` at max speed minus `v`, cut to max speed / 30; zero when there is no desire.
    fn steer(desired: Vec2, v: Vec2) -> Vec2 {
        if desired == Vec2::ZERO {
            return Vec2::ZERO;
        }
        (desired.normalize() * MAX_SPEED - v).clamp_length_max(MAX_SPEED / 30.0)
    }

    fn step(&mut self) {
        let cells = (FIELD / self.vision).floor().as_uvec2();
        let cell_size = FIELD / cells.as_vec2();
        let cell_of = |p: Vec2| {
            let c = ((p + FIELD / 2.0) / cell_size).floor().as_ivec2();
            c.clamp(IVec2::ZERO, cells.as_ivec2() - 1)
        };
        let mut buckets = vec![Vec::new(); (cells.x * cells.y) as usize];
        for (i, &p) in self.positions.iter().enumerate() {
            let c = cell_of(p);
            buckets[(c.y * cells.x as i32 + c.x) as usize].push(i);
        }
        let mut next = self.velocities.clone();
        for (i, &p) in self.positions.iter().enumerate() {
            let v = self.velocities[i];
            let (mut separation, mut velocity_sum, mut offset_sum, mut count) =
                (Vec2::ZERO, Vec2::ZERO, Vec2::ZERO, 0);
            let c = cell_of(p);
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let n = (c + IVec2::new(dx, dy)).rem_euclid(cells.as_ivec2());
                    for &j in &buckets[(n.y * cells.x as i32 + n.x) as usize] {
                        let d = Self::offset(p, self.positions[j]);
                        let distance = d.length();
                        if j == i || distance >= self.vision {
                            continue;
                        }
                        count += 1;
                        velocity_sum += self.velocities[j];
                        offset_sum += d;
                        if distance < SEPARATION_RADIUS && distance > 0.0 {
                            separation -= d / distance / (distance * distance);
                        }
                    }
                }
            }
            if count == 0 {
                continue;
            }
            let n = count as f32;
            let s = self.sliders;
            let change = Self::steer(separation, v) * s.separation * 1.5
                + Self::steer(velocity_sum / n, v) * s.alignment
                + Self::steer(offset_sum / n, v) * s.cohesion;
            let w = v + change;
            let speed = w.length();
            next[i] = if speed > MAX_SPEED {
                w / speed * MAX_SPEED
            } else if speed < MAX_SPEED / 3.0 {
                w / speed * (MAX_SPEED / 3.0)
            } else {
                w
            };
        }
        self.velocities = next;
        let dt = 1.0 / FPS as f32;
        for (p, v) in self.positions.iter_mut().zip(&self.velocities) {
            *p = (*p + *v * dt + FIELD / 2.0).rem_euclid(FIELD) - FIELD / 2.0;
        }
    }
}

/// Seeded start: boids spread evenly over the field, random headings, speed 120.
fn start(seed: u64) -> Vec<(Vec2, Vec2)> {
    let mut rng = Rng::new(seed);
    (0..BOIDS)
        .map(|_| {
            let p = (Vec2::new(rng.unit(), rng.unit()) - 0.5) * FIELD;
            let angle = rng.unit() * std::f32::consts::TAU;
            (p, Vec2::from_angle(angle) * 120.0)
        })
        .collect()
}

fn planar_polarisation(velocities: &[Vec2]) -> f32 {
    polarisation(&velocities.iter().map(|v| v.extend(0.0)).collect::<Vec<_>>())
}

/// Polarisation and mean speed at the end of each second, for the reference and the library.
struct Runs {
    reference: Vec<f32>,
    library: Vec<f32>,
    reference_speed: f32,
    library_speed: f32,
}

fn run_both(seed: u64, sliders: Sliders) -> Runs {
    let boids = start(seed);
    let mut reference = LabReference {
        positions: boids.iter().map(|b| b.0).collect(),
        velocities: boids.iter().map(|b| b.1).collect(),
        sliders,
        vision: VISION,
    };
    let mut app = create_test_app(FlockingPlugins::default().planar());
    app.insert_resource(Time::<Fixed>::from_hz(f64::from(FPS)));
    let mut tuning = FlockTuning::flocking_lab();
    tuning.weights.separation = 1.5 * sliders.separation;
    tuning.weights.alignment = sliders.alignment;
    tuning.weights.cohesion = sliders.cohesion;
    tune_default_flock(&mut app, tuning);
    let agents: Vec<Entity> = boids
        .iter()
        .map(|&(p, v)| {
            app.world_mut()
                .spawn((
                    Agent,
                    Transform::from_translation(p.extend(0.0)),
                    Velocity(v.extend(0.0)),
                ))
                .id()
        })
        .collect();
    let mut runs = Runs {
        reference: Vec::new(),
        library: Vec::new(),
        reference_speed: 0.0,
        library_speed: 0.0,
    };
    for _ in 0..SECONDS {
        for _ in 0..FPS {
            reference.step();
        }
        run_ticks(&mut app, FPS);
        runs.reference
            .push(planar_polarisation(&reference.velocities));
        runs.library
            .push(polarisation(&velocities_of(&app, &agents)));
    }
    let mean_speed = |speeds: &mut dyn Iterator<Item = f32>| speeds.sum::<f32>() / BOIDS as f32;
    runs.reference_speed = mean_speed(&mut reference.velocities.iter().map(|v| v.length()));
    runs.library_speed = mean_speed(&mut velocities_of(&app, &agents).iter().map(|v| v.length()));
    runs
}

/// Runs `sliders` from every seed and compares the seed-averaged polarisation second by
/// second, and the mean speed at the end.
fn compare(scenario: &str, sliders: Sliders) {
    let runs: Vec<Runs> = (1..=SEEDS).map(|seed| run_both(seed, sliders)).collect();
    let n = SEEDS as f32;
    let mean = |pick: &dyn Fn(&Runs) -> f32| runs.iter().map(pick).sum::<f32>() / n;
    let mut report = format!(
        "{scenario}: second, reference, library, difference, its standard error over seeds\n"
    );
    let mut worst: f32 = 0.0;
    for s in 0..SECONDS {
        let (r, l) = (mean(&|run| run.reference[s]), mean(&|run| run.library[s]));
        // The runs of one seed are paired: the error is that of the mean paired difference.
        let spread = runs
            .iter()
            .map(|run| {
                let deviation = run.library[s] - run.reference[s] - (l - r);
                deviation * deviation
            })
            .sum::<f32>()
            / (n - 1.0);
        let error = (spread / n).sqrt();
        report += &format!(
            "{:>3} s  {r:.3}  {l:.3}  {:+.3}  {error:.3}\n",
            s + 1,
            l - r
        );
        worst = worst.max((l - r).abs());
    }
    let (reference_speed, library_speed) = (
        mean(&|run| run.reference_speed),
        mean(&|run| run.library_speed),
    );
    report += &format!("mean speed: reference {reference_speed:.1}, library {library_speed:.1}\n");
    eprintln!("{report}");
    assert!(worst <= TOLERANCE, "{report}");
    assert!(
        (library_speed - reference_speed).abs() <= 0.05 * reference_speed,
        "{report}"
    );
}

/// Largest difference held between the seed-averaged polarisations. Both sides start alike
/// and follow the same rules, but the library sums in another order (SIMD lanes, its own
/// neighbour order), and the flock amplifies those last-bit differences: after about 5 s the
/// two runs of a seed part ways and the difference becomes noise. Its measured standard error
/// over six seeds is up to 0.026 for the birds and 0.037 without alignment (printed in the
/// report), and 16 seeds gave at most 0.035 apart; 0.1 is three to four of those standard
/// errors, while the faults this guards against are far larger (before the rule fixes, the
/// library's birds flew at the minimum speed, 60 px/s where the definition gives 143, and took
/// about twice as long to order).
const TOLERANCE: f32 = 0.1;

#[test]
fn the_lab_birds_order_as_the_lab_defines() {
    compare(
        "birds",
        Sliders {
            separation: 1.0,
            alignment: 1.0,
            cohesion: 1.0,
        },
    );
}

#[test]
fn the_lab_without_alignment_stays_disordered_as_the_lab_defines() {
    compare(
        "alignment 0",
        Sliders {
            separation: 1.0,
            alignment: 0.0,
            cohesion: 1.0,
        },
    );
}

#[test]
fn the_lab_with_alignment_alone_orders_as_the_lab_defines() {
    compare(
        "alignment alone",
        Sliders {
            separation: 0.0,
            alignment: 1.0,
            cohesion: 0.0,
        },
    );
}
