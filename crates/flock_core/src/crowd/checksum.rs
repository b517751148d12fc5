//! [`Crowd::checksum`]: a digest of the crowd's state after a tick, for lockstep games to
//! compare between peers.

use glam::Vec3;

use crate::executor::for_each_part;

use super::Crowd;

/// Agents per block of the checksum. Each block is digested on its own, on any thread, and the
/// blocks' digests, in order, make the checksum: so it is the same whatever the executor.
const BLOCK: usize = 2048;

/// The words an agent's state takes (see [`Crowd::checksum`]).
const WORDS: usize = 12;

/// Odd constants of xxHash64 (Collet 2012), for the multiplications that mix the words in.
const PRIME_1: u64 = 0x9E37_79B1_85EB_CA87;
const PRIME_2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const PRIME_3: u64 = 0x1656_67B1_9E37_79F9;

/// A digest of rows of 64-bit words, each word of a row in a lane of its own: a lane takes its
/// word by `(lane rotated) ^ word`, then a multiplication by an odd constant, and the fold at
/// the end takes the lanes one after another the same way. Every step can be undone, so a
/// difference in one word always gives another digest; differences in several meet another by
/// a chance of about one in 2^64. One multiplication a word (xxHash64's round takes two), in
/// lanes that run side by side. A checksum, not an interchange format.
struct Digest {
    lanes: [u64; WORDS],
    rows: u64,
}

impl Digest {
    fn new(seed: u64) -> Self {
        Self {
            lanes: core::array::from_fn(|k| seed ^ PRIME_3.wrapping_mul(k as u64 + 1)),
            rows: 0,
        }
    }

    /// Mixes in a row of words, one a lane.
    #[inline(always)]
    fn row(&mut self, words: [u64; WORDS]) {
        for (lane, word) in self.lanes.iter_mut().zip(words) {
            *lane = (lane.rotate_left(23) ^ word).wrapping_mul(PRIME_1);
        }
        self.rows += 1;
    }

    /// The lanes folded into one value, with the number of rows.
    fn finish(self) -> u64 {
        let mut h = self.rows;
        for lane in self.lanes {
            h = (h.rotate_left(27) ^ lane).wrapping_mul(PRIME_2);
        }
        h ^= h >> 33;
        h = h.wrapping_mul(PRIME_3);
        h ^ (h >> 32)
    }
}

/// Two floats' bits as one word.
#[inline(always)]
fn pair(a: f32, b: f32) -> u64 {
    u64::from(a.to_bits()) | u64::from(b.to_bits()) << 32
}

impl Crowd {
    /// A digest of the crowd's state as a tick leaves it: for each agent in index order, its
    /// position, velocity and heading, its flock and parameter set, and the memory it carries
    /// to the next tick (held avoidance, wander direction, last force); with the number of
    /// agents, the tick count and the seed of the draws. Two crowds that will step alike from
    /// here have the same checksum. A difference in any one of those numbers always gives
    /// another; differences in several, all but surely (a chance of about one in 2^64).
    ///
    /// The same state gives the same checksum whatever the executor, its thread count and the
    /// SIMD path, on any machine (it reads the values' bits, not their bytes in memory). What it
    /// leaves out: this tick's inputs that the next tick's replace (targets, added forces,
    /// leaders, flows, standoffs, speed factors), the tuning behind each parameter set, the
    /// obstacles, and caches that change no result (the neighbour grid, the velocity-obstacle
    /// step's ceilings). A lockstep game combines it with a digest of its own state.
    ///
    /// It reads every agent once, in parallel on the crowd's executor.
    pub fn checksum(&self) -> u64 {
        self.checksum_with_ids(&[])
    }

    /// [`checksum`](Self::checksum) with each agent's stable id beside its state: `ids[i]` is
    /// agent `i`'s (0 past the end), as a game names its agents on every peer. Then an agent
    /// missing on one peer, or two agents' places swapped, changes it too.
    pub fn checksum_with_ids(&self, ids: &[u64]) -> u64 {
        let len = self.len();
        let mut blocks = vec![0_u64; len.div_ceil(BLOCK)];
        // Each task takes whole blocks: about as many agents as the executor gives a task of a
        // pass.
        let per_task = self.executor.chunk_len(len).div_ceil(BLOCK).max(1);
        let parts: Vec<&mut [u64]> = blocks.chunks_mut(per_task).collect();
        for_each_part(&*self.executor, parts, |k, digests| {
            for (b, digest) in (k * per_task..).zip(digests) {
                let start = b * BLOCK;
                *digest = self.block_digest(start..(start + BLOCK).min(len), ids);
            }
        });
        let mut whole = Digest::new(self.seed);
        let mut header = [0; WORDS];
        header[..3].copy_from_slice(&[len as u64, self.tick, self.params.len() as u64]);
        whole.row(header);
        for row in blocks.chunks(WORDS) {
            let mut words = [0; WORDS];
            words[..row.len()].copy_from_slice(row);
            whole.row(words);
        }
        whole.finish()
    }

    /// The digest of agents `range`, with their `ids`.
    fn block_digest(&self, range: core::ops::Range<usize>, ids: &[u64]) -> u64 {
        let mut digest = Digest::new(range.start as u64);
        let (agents, extras) = (&self.agents, &self.agents.extras);
        let bodies = agents.bodies[range.clone()].iter();
        let roles = agents.flocks[range.clone()]
            .iter()
            .zip(&agents.params[range.clone()]);
        for ((i, body), (&flock, &params)) in range.zip(bodies).zip(roles) {
            let (p, v, h) = (body.position, body.velocity, body.heading);
            let (hold, seconds) = extras
                .hold(i)
                .map_or((Vec3::NAN, f32::NAN), |h| (h.direction, h.seconds_left));
            let (wander, force) = (extras.wander(i), extras.last_force(i).unwrap_or(Vec3::NAN));
            digest.row([
                pair(p.x, p.y),
                pair(p.z, v.x),
                pair(v.y, v.z),
                pair(h.x, h.y),
                pair(h.z, seconds),
                u64::from(flock) | u64::from(params) << 32,
                pair(hold.x, hold.y),
                pair(hold.z, wander.x),
                pair(wander.y, wander.z),
                pair(force.x, force.y),
                pair(force.z, 0.0),
                ids.get(i).copied().unwrap_or(0),
            ]);
        }
        digest.finish()
    }
}
