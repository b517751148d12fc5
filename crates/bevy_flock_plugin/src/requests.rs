//! [`Requests`]: the paths units ask a planner for, waiting their turn in the order asked,
//! and the answers not yet taken. The terrain's planner and the navmesh's keep their requests
//! in one.

use std::collections::VecDeque;

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;

use crate::destination::Planned;

/// A path asked for: by whom, from where, to where, and its number (see [`Requests`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Request {
    pub(crate) who: Entity,
    pub(crate) from: Vec3,
    pub(crate) to: Vec3,
    number: u64,
}

/// The requests waiting, oldest first, and the answers not yet taken. A unit has at most one
/// request: asking again replaces it. A request counts only while `asked` holds its number for
/// its asker, so that one replaced or forgotten is dropped when its turn comes, without a scan
/// of the queue; and each unit's question is answered by a lookup, where a scan of the queue
/// made a tick's work grow with the square of the units waiting.
#[derive(Debug, Default)]
pub(crate) struct Requests {
    /// Requests waiting, oldest first, and some no longer wanted.
    queue: VecDeque<Request>,
    /// By asker, where to and the number of its request waiting in `queue`.
    asked: EntityHashMap<(Vec3, u64)>,
    /// The number the next request gets.
    next_number: u64,
    /// Answers not yet taken, by who asked: where to, and the path if there is one.
    answers: EntityHashMap<(Vec3, Option<Vec<Vec3>>)>,
}

impl Requests {
    /// How many requests wait.
    pub(crate) fn waiting(&self) -> usize {
        self.asked.len()
    }

    /// Whether `who` has a request waiting, or an answer not taken.
    pub(crate) fn has(&self, who: Entity) -> bool {
        self.answers.contains_key(&who) || self.asked.contains_key(&who)
    }

    /// Whether `who`'s request waiting is for `to`.
    pub(crate) fn is_waiting_for(&self, who: Entity, to: Vec3) -> bool {
        self.asked.get(&who).is_some_and(|&(asked, _)| asked == to)
    }

    /// Queues `who`'s request for a path from `from` to `to`, replacing any it had waiting.
    pub(crate) fn ask(&mut self, who: Entity, from: Vec3, to: Vec3) {
        let request = self.numbered(who, from, to);
        self.queue.push_back(request);
        self.drop_unwanted();
    }

    /// Queues `who`'s request ahead of every other (a search to start afresh).
    pub(crate) fn ask_first(&mut self, who: Entity, from: Vec3, to: Vec3) {
        let request = self.numbered(who, from, to);
        self.queue.push_front(request);
    }

    /// A request by `who` from `from` to `to`, counted as the one it waits for.
    fn numbered(&mut self, who: Entity, from: Vec3, to: Vec3) -> Request {
        let number = self.next_number;
        self.next_number += 1;
        self.asked.insert(who, (to, number));
        Request {
            who,
            from,
            to,
            number,
        }
    }

    /// The number of the request at the head of the queue (wanted or not).
    pub(crate) fn head(&self) -> Option<u64> {
        self.queue.front().map(|r| r.number)
    }

    /// The oldest request still wanted, taken from the queue: it no longer waits.
    pub(crate) fn next(&mut self) -> Option<Request> {
        while let Some(request) = self.queue.pop_front() {
            let wanted =
                (self.asked.get(&request.who)).is_some_and(|&(_, number)| number == request.number);
            if wanted {
                self.asked.remove(&request.who);
                return Some(request);
            }
        }
        None
    }

    /// Puts `request`, taken by [`next`](Self::next), back at the head of the queue, waiting
    /// again with its number; returns that number.
    pub(crate) fn put_back(&mut self, request: Request) -> u64 {
        self.asked.insert(request.who, (request.to, request.number));
        self.queue.push_front(request);
        request.number
    }

    /// Drops the requests no longer wanted from the queue, once they outnumber those that are
    /// (units sent elsewhere again and again while they wait): each is dropped once, so the
    /// work is spread over the requests made.
    fn drop_unwanted(&mut self) {
        if self.queue.len() <= 2 * self.asked.len() + 64 {
            return;
        }
        let asked = &self.asked;
        self.queue
            .retain(|r| asked.get(&r.who).is_some_and(|&(_, n)| n == r.number));
    }

    /// Answers `who`'s request for `to`: the path, or `None` where there is none.
    pub(crate) fn answer(&mut self, who: Entity, to: Vec3, path: Option<Vec<Vec3>>) {
        self.answers.insert(who, (to, path));
    }

    /// `who`'s answer, if it is for `to`; an answer for another point is dropped.
    pub(crate) fn take_answer(&mut self, who: Entity, to: Vec3) -> Option<Planned> {
        let (answered, path) = self.answers.remove(&who)?;
        (answered == to).then(|| path.map_or(Planned::NoPath, Planned::Ready))
    }

    /// Drops the answers not yet taken (found on a mesh since replaced).
    #[cfg(feature = "navmesh")]
    pub(crate) fn drop_answers(&mut self) {
        self.answers.clear();
    }

    /// Drops what `who` asked for (its request left in the queue, dropped in its turn), and
    /// any answer it did not take.
    pub(crate) fn forget(&mut self, who: Entity) {
        self.asked.remove(&who);
        self.answers.remove(&who);
    }
}

/// The requests still wanted as a snapshot holds them, oldest first: who (by stable id), from
/// where, to where.
#[cfg(feature = "snapshot")]
pub(crate) type SavedQueue = Vec<(u64, Vec3, Vec3)>;
/// The answers not yet taken as a snapshot holds them, by stable id: where to, and the path if
/// there is one.
#[cfg(feature = "snapshot")]
pub(crate) type SavedAnswers = Vec<(u64, Vec3, Option<Vec<Vec3>>)>;

#[cfg(feature = "snapshot")]
impl Requests {
    /// The requests as a snapshot holds them, each unit named by `id_of`; what a unit it names
    /// no id for asked is left out (its destination was removed: the planner forgets it next
    /// tick, before it plans anything).
    pub(crate) fn save(&self, id_of: impl Fn(Entity) -> Option<u64>) -> (SavedQueue, SavedAnswers) {
        // Requests replaced or forgotten since they were queued are never answered.
        let queue = (self.queue.iter())
            .filter(|r| self.asked.get(&r.who).is_some_and(|&(_, n)| n == r.number))
            .filter_map(|r| Some((id_of(r.who)?, r.from, r.to)))
            .collect();
        let mut answers: SavedAnswers = (self.answers.iter())
            .filter_map(|(&who, (to, path))| Some((id_of(who)?, *to, path.clone())))
            .collect();
        answers.sort_unstable_by_key(|&(id, ..)| id);
        (queue, answers)
    }

    /// The requests restored from a snapshot's `queue` and `answers`, each id named by
    /// `entity_of`.
    pub(crate) fn restore(
        queue: &SavedQueue,
        answers: &SavedAnswers,
        entity_of: impl Fn(u64) -> Entity,
    ) -> Self {
        let mut requests = Self::default();
        for &(id, from, to) in queue {
            let request = requests.numbered(entity_of(id), from, to);
            requests.queue.push_back(request);
        }
        requests.answers = (answers.iter())
            .map(|(id, to, path)| (entity_of(*id), (*to, path.clone())))
            .collect();
        requests
    }
}
