//! The navmesh's path planner: requests answered in the order made, at most so many a tick.

use std::collections::VecDeque;

use bevy::platform::time::Instant;
use bevy::prelude::*;
use core::time::Duration;

use super::mesh::NavMesh;
use crate::destination::Planned;
use crate::requests::Requests;

/// How many paths found on the mesh as it is the planner keeps for reuse, the newest.
const REUSABLE_PATHS: usize = 64;
/// A path found from one point serves a unit within this share of its length of that point:
/// the unit's way by it is then at most twice that share longer than the path.
const REUSED_WITHIN: f32 = 0.1;

/// Plans the paths of [`Destination`](crate::Destination)s across the [`NavMesh`]: requests wait
/// their turn in the order made, and at most [`paths_per_tick`](Self::paths_per_tick) are
/// searched for in one tick, so that a crowd sent at once is answered over a few ticks instead
/// of stalling one. A unit waiting for its path keeps the one it had. A path found to a point
/// is reused, without a search, by a unit sent to the same point from near where it was found
/// (within a tenth of its length) that sees its first waypoint: a group sent together, a horde
/// chasing one player. The work is counted in paths, never
/// timed, so runs repeat.
#[derive(Resource, Debug)]
pub struct NavMeshPlanner {
    /// Most paths searched for in one tick (4 by default). A path's search takes longer the
    /// more ways of about the same length the mesh offers, and the more corners the clearance
    /// rounds: on a 2-core x86-64 machine, 20 µs at the median and 140 µs at the 99th
    /// percentile between random points of a town of 900 polygons with no clearance, and up to
    /// about 1.2 ms across a grid of streets 250 m wide kept 0.35 m from its buildings, so 4
    /// cost at most about 4.5 ms a tick there, and a thousand units sent at once are answered
    /// within 250 ticks. Zero plans nothing.
    pub paths_per_tick: u32,
    /// This tick's budget left.
    left: u32,
    /// The requests waiting, and the answers not yet taken.
    requests: Requests,
    /// The mesh the answers are of.
    mesh: Option<u64>,
    /// The newest paths found on the mesh as it is, oldest first, each with where it was found
    /// from and its length.
    found: VecDeque<Found>,
    /// The number of the request at the queue's head once no path found serves it and this
    /// tick's budget is spent: until the next tick nothing can serve it, and units still
    /// waiting need not look again.
    head_waits: Option<u64>,
    /// Paths searched for in the last tick, and the time they took.
    spent: u32,
    searched_for: Duration,
}

/// A path found, kept for reuse.
#[derive(Clone, Debug)]
struct Found {
    from: Vec3,
    length: f32,
    waypoints: Vec<Vec3>,
}

impl Default for NavMeshPlanner {
    fn default() -> Self {
        Self {
            paths_per_tick: 4,
            left: 0,
            requests: Requests::default(),
            mesh: None,
            found: VecDeque::new(),
            head_waits: None,
            spent: 0,
            searched_for: Duration::ZERO,
        }
    }
}

impl NavMeshPlanner {
    /// Paths searched for in the last tick: at most [`paths_per_tick`](Self::paths_per_tick)
    /// (paths reused are not counted).
    pub fn spent_last_tick(&self) -> u32 {
        self.spent
    }

    /// The time the searches took in the last tick: a measurement for a game's diagnostics,
    /// which the planner never reads.
    pub fn time_last_tick(&self) -> Duration {
        self.searched_for
    }

    /// How many requests wait.
    pub fn waiting(&self) -> usize {
        self.requests.waiting()
    }

    /// Whether `who` has a request waiting, or answered and not taken.
    pub(crate) fn has_request(&self, who: Entity) -> bool {
        self.requests.has(who)
    }

    /// Starts a new tick's budget.
    pub(crate) fn new_tick(&mut self) {
        self.left = self.paths_per_tick;
        self.head_waits = None;
        self.spent = 0;
        self.searched_for = Duration::ZERO;
    }

    /// The path for `who` from `from` to `to` across `mesh`: ready if it was planned (now or
    /// since it was asked for), else asked for, and planned in its turn within this tick's
    /// budget. A request for a new `to` replaces `who`'s earlier one.
    pub(crate) fn plan(&mut self, mesh: &NavMesh, who: Entity, from: Vec3, to: Vec3) -> Planned {
        if self.mesh != Some(mesh.number()) {
            // Answers found on a mesh since replaced are of no use; the requests stay.
            self.requests.drop_answers();
            self.found.clear();
            self.mesh = Some(mesh.number());
        }
        // On its floor's ground, so that the same point asked from any height is one request.
        let to = mesh.on_ground(to);
        if let Some(answer) = self.requests.take_answer(who, to) {
            return answer;
        }
        if !self.requests.is_waiting_for(who, to) {
            self.requests.forget(who);
            self.requests.ask(who, from, to);
        }
        self.work(mesh);
        self.requests
            .take_answer(who, to)
            .unwrap_or(Planned::Waiting)
    }

    /// Drops what `who` asked for (its request left in the queue, dropped in its turn), and
    /// any answer it did not take.
    pub(crate) fn forget(&mut self, who: Entity) {
        self.requests.forget(who);
    }

    /// Answers requests in turn: those a path found before serves at once, the others by a
    /// search each while this tick's budget lasts. Once it is spent, requests are answered in
    /// turn only while a path found before serves them, and the clock is not read.
    fn work(&mut self, mesh: &NavMesh) {
        let head = self.requests.head();
        if head.is_none() || (self.left == 0 && head == self.head_waits) {
            return;
        }
        let started = (self.left > 0).then(Instant::now);
        while let Some(request) = self.requests.next() {
            let path = match self.reusable(mesh, request.from, request.to) {
                Some(path) => Some(path),
                None if self.left == 0 => {
                    self.head_waits = Some(self.requests.put_back(request));
                    break;
                }
                None => {
                    self.left -= 1;
                    self.spent += 1;
                    let path = mesh.find_path(request.from, request.to);
                    if let Some(path) = &path {
                        self.keep(mesh.on_ground(request.from), path);
                    }
                    path
                }
            };
            self.requests.answer(request.who, request.to, path);
        }
        if let Some(started) = started {
            self.searched_for += started.elapsed();
        }
    }

    /// Keeps `waypoints`, found from `from` (on the ground), for reuse (dropping the oldest
    /// kept).
    fn keep(&mut self, from: Vec3, waypoints: &[Vec3]) {
        if self.found.len() == REUSABLE_PATHS {
            self.found.pop_front();
        }
        let (length, _) = waypoints.iter().fold((0.0, from), |(length, at), &next| {
            (length + at.distance(next), next)
        });
        self.found.push_back(Found {
            from,
            length,
            waypoints: waypoints.to_vec(),
        });
    }

    /// A path found before that leads to `to`, from near `from` on its floor (see
    /// [`REUSED_WITHIN`]), whose first waypoint `from` sees.
    fn reusable(&self, mesh: &NavMesh, from: Vec3, to: Vec3) -> Option<Vec<Vec3>> {
        let from = mesh.on_ground(from);
        self.found
            .iter()
            .rev()
            .find(|found| {
                found.waypoints.last() == Some(&to)
                    && found.from.distance(from) <= REUSED_WITHIN * found.length
                    && mesh.same_floor(found.from, from)
                    && (found.waypoints.first()).is_some_and(|&w| mesh.is_clear_line(from, w))
            })
            .map(|found| found.waypoints.clone())
    }
}

/// A [`NavMeshPlanner`] as a snapshot holds it: its budget, the requests waiting in their
/// order, the answers not yet taken and the paths kept for reuse, each unit named by its stable
/// id. The mesh is the game's: what was found on the mesh in the world when the snapshot was
/// taken is restored as found on the mesh in the world it is restored into.
#[cfg(feature = "snapshot")]
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct SavedMeshPlanner {
    paths_per_tick: u32,
    queue: crate::requests::SavedQueue,
    answers: crate::requests::SavedAnswers,
    /// Whether the answers and the paths kept were found on the mesh in the world.
    on_the_mesh: bool,
    /// The paths kept: where each was found from, its length and its waypoints.
    found: Vec<(Vec3, f32, Vec<Vec3>)>,
}

#[cfg(feature = "snapshot")]
impl NavMeshPlanner {
    /// The planner as a snapshot holds it, each unit named by `id_of`, in a world whose mesh is
    /// `mesh`. What a unit it names no id for asked is left out (see [`Requests::save`]).
    pub(crate) fn save(
        &self,
        id_of: impl Fn(Entity) -> Option<u64>,
        mesh: Option<&NavMesh>,
    ) -> SavedMeshPlanner {
        let (queue, answers) = self.requests.save(id_of);
        SavedMeshPlanner {
            paths_per_tick: self.paths_per_tick,
            queue,
            answers,
            on_the_mesh: self.mesh.is_some() && self.mesh == mesh.map(NavMesh::number),
            found: (self.found.iter())
                .map(|f| (f.from, f.length, f.waypoints.clone()))
                .collect(),
        }
    }
}

#[cfg(feature = "snapshot")]
impl SavedMeshPlanner {
    /// Every id the planner names.
    pub(crate) fn ids(&self) -> impl Iterator<Item = u64> + '_ {
        let queued = self.queue.iter().map(|&(id, ..)| id);
        queued.chain(self.answers.iter().map(|&(id, ..)| id))
    }

    /// The planner restored into a world whose mesh is `mesh`, each id named by `entity_of`.
    pub(crate) fn restore(
        &self,
        entity_of: impl Fn(u64) -> Entity,
        mesh: Option<&NavMesh>,
    ) -> NavMeshPlanner {
        NavMeshPlanner {
            paths_per_tick: self.paths_per_tick,
            requests: Requests::restore(&self.queue, &self.answers, entity_of),
            mesh: mesh.filter(|_| self.on_the_mesh).map(NavMesh::number),
            found: (self.found.iter())
                .map(|(from, length, waypoints)| Found {
                    from: *from,
                    length: *length,
                    waypoints: waypoints.clone(),
                })
                .collect(),
            ..NavMeshPlanner::default()
        }
    }
}
