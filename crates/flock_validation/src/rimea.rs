//! RiMEA's scenes with walls and ways through them: test 6, round a corner; test 9, a hall
//! emptied through four exits and through two; test 12, two bottlenecks in series.

use flock_core::glam::Vec3;
use flock_core::{FlockTuning, Shape};

use crate::people::{Model, People};
use crate::{BREADTH, depth_in, scatter, v, wall, walls};

/// A way through, from `from` to `to` (the posts), crossed toward `ahead` (unit).
#[derive(Clone, Copy, Debug)]
pub struct Gate {
    /// One post.
    pub from: Vec3,
    /// The other post.
    pub to: Vec3,
    /// The direction it is crossed in (unit).
    pub ahead: Vec3,
}

impl Gate {
    /// The way through a wall across `ahead`, `width` wide, centred on `centre`.
    pub fn across(centre: Vec3, width: f32, ahead: Vec3) -> Self {
        let along = Vec3::new(-ahead.y, ahead.x, 0.0) * (0.5 * width);
        Self {
            from: centre - along,
            to: centre + along,
            ahead,
        }
    }

    /// The point a person at `p` heads for: the nearest of the way through, a body's breadth
    /// from the posts (the middle where the way is narrower), a little past the line.
    pub fn aim(&self, p: Vec3) -> Vec3 {
        let span = self.to - self.from;
        let length = span.length();
        let margin = BREADTH.min(0.5 * length);
        let t = (p - self.from)
            .dot(span / length)
            .clamp(margin, length - margin);
        self.from + span / length * t + self.ahead * BREADTH
    }

    /// Whether `p` is past the line.
    pub fn passed(&self, p: Vec3) -> bool {
        (p - self.from).dot(self.ahead) > 0.0
    }
}

/// A scene: its walls, and each person's start and the ways through it walks in order.
pub struct Scene {
    /// The walls.
    pub walls: Vec<Shape>,
    /// Each person's start and route.
    pub people: Vec<(Vec3, Vec<Gate>)>,
}

/// What a run of a [`Scene`] measured.
pub struct Walk {
    /// By person, by gate of its route: when it passed (s).
    pub passed: Vec<Vec<Option<f32>>>,
    /// The deepest any body went into a wall, as a share of its radius.
    pub deepest: f32,
    /// When the last one passed its last gate (s), if all did.
    pub out: Option<f32>,
}

/// How a scene is walked: how the people are moved, the tick rate, the longest it runs, and on
/// how many threads.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    /// How the people are moved.
    pub model: Model,
    /// Ticks a second.
    pub ticks_per_second: f32,
    /// The longest the run lasts, s.
    pub seconds: f32,
    /// Threads the kernel runs on.
    pub threads: usize,
}

impl Run {
    /// The pedestrian recipe at `ticks_per_second`, for at most `seconds`, on one thread.
    pub fn pedestrians(ticks_per_second: f32, seconds: f32) -> Self {
        Self {
            model: Model::Kernel(FlockTuning::pedestrian()),
            ticks_per_second,
            seconds,
            threads: 1,
        }
    }
}

/// Walks `scene` as `run` says, each person through its gates in turn, calling `watch` with
/// the crowd after every tick.
pub fn walk(scene: &Scene, run: &Run, watch: &mut dyn FnMut(&People)) -> Walk {
    let mut crowd = run.model.people(&scene.walls, run.threads);
    for (start, route) in &scene.people {
        crowd.push(*start, route[0].ahead, route[0].aim(*start));
    }
    let mut passed: Vec<Vec<Option<f32>>> = (scene.people.iter())
        .map(|(_, route)| vec![None; route.len()])
        .collect();
    let (mut deepest, mut out) = (0.0_f32, None);
    let dt = 1.0 / run.ticks_per_second;
    for tick in 1..=(run.seconds * run.ticks_per_second) as usize {
        crowd.step(dt);
        let now = tick as f32 * dt;
        watch(&crowd);
        for (i, (_, route)) in scene.people.iter().enumerate() {
            let p = crowd.position(i);
            deepest = deepest.max(depth_in(&scene.walls, p));
            let Some(next) = passed[i].iter().position(Option::is_none) else {
                continue;
            };
            if route[next].passed(p) {
                passed[i][next] = Some(now);
                let target = match route.get(next + 1) {
                    Some(gate) => gate.aim(p),
                    None => route[next].aim(p) + route[next].ahead * 10.0,
                };
                crowd.retarget(i, target);
            }
        }
        if passed.iter().all(|times| times.iter().all(Option::is_some)) {
            out = Some(now);
            break;
        }
    }
    Walk {
        passed,
        deepest,
        out,
    }
}

/// RiMEA test 6's corner: a corridor 2 m wide, 12 m along x and then 12 m up y (turning
/// left), with 20 people in its first 6 m.
pub fn corner() -> Scene {
    let walls: Vec<Shape> = walls(&[v(0.0, 2.0), v(0.0, 0.0), v(12.0, 0.0), v(12.0, 12.0)])
        .chain(walls(&[v(0.0, 2.0), v(10.0, 2.0), v(10.0, 12.0)]))
        .collect();
    let route = vec![
        Gate::across(v(11.0, 2.0), 2.0, Vec3::Y),
        Gate::across(v(11.0, 12.0), 2.0, Vec3::Y),
    ];
    let people = (0..20)
        .map(|k| {
            let start = v(0.5 + 0.6 * (k / 2) as f32, 0.6 + 0.8 * (k % 2) as f32);
            (start, route.clone())
        })
        .collect();
    Scene { walls, people }
}

/// RiMEA test 12's two bottlenecks in series: 150 people in a room 10 m by 10 m leave it by a
/// corridor 1 m wide and 6 m long into a second room, and walk on through it.
pub fn bottlenecks_in_series() -> Scene {
    let walls: Vec<Shape> = walls(&[v(0.0, 0.5), v(0.0, 5.0), v(-10.0, 5.0), v(-10.0, -5.0)])
        .chain(walls(&[v(-10.0, -5.0), v(0.0, -5.0), v(0.0, -0.5)]))
        .chain(walls(&[
            v(0.0, 0.5),
            v(6.0, 0.5),
            v(6.0, 5.0),
            v(16.0, 5.0),
        ]))
        .chain(walls(&[
            v(0.0, -0.5),
            v(6.0, -0.5),
            v(6.0, -5.0),
            v(16.0, -5.0),
        ]))
        .collect();
    let route = vec![
        Gate::across(v(0.0, 0.0), 1.0, Vec3::X),
        Gate::across(v(6.0, 0.0), 1.0, Vec3::X),
        Gate::across(v(16.0, 0.0), 10.0, Vec3::X),
    ];
    // 15 columns of 10, 0.65 m apart, from 0.5 m inside the room's far wall.
    let people = (0..150)
        .map(|k| {
            let start = v(-9.5 + 0.65 * (k / 10) as f32, -4.5 + (k % 10) as f32);
            (start, route.clone())
        })
        .collect();
    Scene { walls, people }
}

/// The greatest number of people at once standing (under 0.2 m/s) within `zone` (an x range)
/// of the way through at y = 0, over a run.
pub struct Standing {
    /// The x range watched.
    pub zone: core::ops::Range<f32>,
    /// The most seen so far.
    pub most: usize,
}

impl Standing {
    /// Counts those standing in the zone now.
    pub fn count(&mut self, crowd: &People) {
        let standing = (0..crowd.len())
            .filter(|&i| {
                let p = crowd.position(i);
                self.zone.contains(&p.x) && p.y.abs() < 5.0 && crowd.velocity(i).length() < 0.2
            })
            .count();
        self.most = self.most.max(standing);
    }
}

/// RiMEA test 9's hall: 30 m by 20 m with 1,000 people on a jittered grid, and exits 1 m
/// wide at both ends of its left and right walls; with `both_sides` false only the left
/// ones are open. Each person walks to the nearest open exit.
pub fn hall(both_sides: bool) -> Scene {
    let (left, right) = (0.0, 30.0);
    let exits_at = [1.5, 18.5];
    // Each side wall runs between its exits' posts and past them to the corners.
    let side = |x: f32| {
        [
            wall(v(x, 0.0), v(x, exits_at[0] - 0.5)),
            wall(v(x, exits_at[0] + 0.5), v(x, exits_at[1] - 0.5)),
            wall(v(x, exits_at[1] + 0.5), v(x, 20.0)),
        ]
    };
    let mut walls: Vec<Shape> = vec![wall(v(left, 0.0), v(right, 0.0))];
    walls.push(wall(v(left, 20.0), v(right, 20.0)));
    walls.extend(side(left));
    if both_sides {
        walls.extend(side(right));
    } else {
        walls.push(wall(v(right, 0.0), v(right, 20.0)));
    }
    let mut exits: Vec<Gate> = (exits_at.iter())
        .map(|&y| Gate::across(v(left, y), 1.0, Vec3::NEG_X))
        .collect();
    if both_sides {
        exits.extend(exits_at.map(|y| Gate::across(v(right, y), 1.0, Vec3::X)));
    }
    let people = (0..1000)
        .map(|k| {
            let (jx, jy) = scatter(k);
            let start = v(
                1.0 + 0.7 * (k / 25) as f32 + 0.15 * jx,
                1.0 + 0.72 * (k % 25) as f32 + 0.15 * jy,
            );
            let nearest = (exits.iter())
                .min_by(|a, b| {
                    let d = |g: &&Gate| (0.5 * (g.from + g.to) - start).length_squared();
                    d(a).total_cmp(&d(b))
                })
                .copied()
                .expect("the hall has exits");
            (start, vec![nearest])
        })
        .collect();
    Scene { walls, people }
}
