//! Reading a snapshot's agents from its bytes, field by field, as postcard's derived
//! deserialisation reads them (tests hold the two to the same answers, for any bytes), without
//! serde's dispatch for each field: a snapshot reads its agents two or three times (to check
//! them, for their ids, to write them), so each read counts.

use serde::de::DeserializeOwned;

use super::error::SnapshotError;
use super::record::{AgentRecord, TargetRecord};

/// The value `bytes` hold, whole, in postcard's format (through serde: the parts of a snapshot
/// read once, not an agent at a time); `what` names it in the error.
pub(super) fn whole<T: DeserializeOwned>(bytes: &[u8], what: &str) -> Result<T, SnapshotError> {
    let malformed = |why: String| SnapshotError::Malformed(format!("its {what}: {why}"));
    match postcard::take_from_bytes(bytes) {
        Ok((value, [])) => Ok(value),
        Ok((_, rest)) => Err(malformed(format!("{} bytes follow", rest.len()))),
        Err(error) => Err(malformed(error.to_string())),
    }
}

/// The bytes still to read.
pub(super) struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }

    /// What is left unread.
    pub(super) fn rest(&self) -> &'a [u8] {
        self.bytes
    }

    fn byte(&mut self) -> Option<u8> {
        let (&byte, rest) = self.bytes.split_first()?;
        self.bytes = rest;
        Some(byte)
    }

    /// A varint of at most `most` bytes whose last byte, if the `most`th, is at most `last`
    /// (postcard's rule for an integer of that width).
    fn varint(&mut self, most: u32, last: u8) -> Option<u64> {
        let mut value = 0u64;
        for k in 0..most {
            let byte = self.byte()?;
            value |= u64::from(byte & 0x7F) << (7 * k);
            if byte & 0x80 == 0 {
                return (k + 1 < most || byte <= last).then_some(value);
            }
        }
        None
    }

    pub(super) fn u64(&mut self) -> Option<u64> {
        self.varint(10, 0x01)
    }

    /// An `i32`: a varint of its zigzag encoding (0, -1, 1, -2, ... as 0, 1, 2, 3, ...).
    fn i32(&mut self) -> Option<i32> {
        let zigzag = u32::try_from(self.varint(5, 0x0F)?).ok()?;
        Some((zigzag >> 1) as i32 ^ -((zigzag & 1) as i32))
    }

    /// A byte string: its length (a varint), then that many bytes.
    pub(super) fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = usize::try_from(self.u64()?).ok()?;
        let (bytes, rest) = self.bytes.split_at_checked(len)?;
        self.bytes = rest;
        Some(bytes)
    }

    /// An enum's variant index (a `u32`).
    fn variant(&mut self) -> Option<u64> {
        self.varint(5, 0x0F)
    }

    fn floats<const N: usize>(&mut self) -> Option<[f32; N]> {
        let mut out = [0.0; N];
        for x in &mut out {
            let (bits, rest) = self.bytes.split_first_chunk::<4>()?;
            *x = f32::from_le_bytes(*bits);
            self.bytes = rest;
        }
        Some(out)
    }

    fn bool(&mut self) -> Option<bool> {
        match self.byte()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    fn option<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        match self.byte()? {
            0 => Some(None),
            1 => read(self).map(Some),
            _ => None,
        }
    }

    /// Steps over `n` bytes (floats: any four bytes are one).
    fn skip(&mut self, n: usize) -> Option<()> {
        self.bytes = self.bytes.get(n..)?;
        Some(())
    }

    /// Steps over an optional part of `n` bytes.
    fn skip_option(&mut self, n: usize) -> Option<()> {
        match self.byte()? {
            0 => Some(()),
            1 => self.skip(n),
            _ => None,
        }
    }

    /// The next agent's id and target, stepping over the rest, or `None` where the bytes are
    /// not an agent: what [`record`](Self::record) accepts, at a fraction of its work (no
    /// float is read), for the passes that need only these.
    pub(super) fn id_and_target(&mut self) -> Option<(u64, TargetRecord)> {
        let id = self.u64()?;
        // Translation, then rotation (optional), velocity and heading.
        self.skip(12)?;
        self.skip_option(16)?;
        self.skip(24)?;
        // Last valid position, hold, wander, kept force.
        for part in [12, 16, 12, 12] {
            self.skip_option(part)?;
        }
        self.bool()?;
        if self.option(|r| r.skip(8))?.is_some() {
            self.bool()?;
        }
        let target = match self.variant()? {
            0 => TargetRecord::None,
            1 => TargetRecord::Point(self.floats()?),
            2 => TargetRecord::Entity(self.u64()?),
            3 => TargetRecord::Pursue(self.u64()?),
            _ => return None,
        };
        self.option(Self::i32)?;
        Some((id, target))
    }

    /// The next agent, or `None` where the bytes are not one.
    pub(super) fn record(&mut self) -> Option<AgentRecord> {
        Some(AgentRecord {
            id: self.u64()?,
            translation: self.floats()?,
            rotation: self.option(Self::floats)?,
            velocity: self.floats()?,
            heading: self.floats()?,
            last_valid_position: self.option(Self::floats)?,
            hold: self.option(|r| Some((r.floats()?, r.floats::<1>()?[0])))?,
            wander: self.option(Self::floats)?,
            last_force: self.option(Self::floats)?,
            at_target: self.bool()?,
            progress: self.option(|r| {
                let [checkpoint, stalled_for] = r.floats()?;
                Some((checkpoint, stalled_for, r.bool()?))
            })?,
            target: match self.variant()? {
                0 => TargetRecord::None,
                1 => TargetRecord::Point(self.floats()?),
                2 => TargetRecord::Entity(self.u64()?),
                3 => TargetRecord::Pursue(self.u64()?),
                _ => return None,
            },
            floor: self.option(Self::i32)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn floats<const N: usize>() -> impl Strategy<Value = [f32; N]> {
        proptest::array::uniform(any::<u32>().prop_map(f32::from_bits))
    }

    /// Any record: every float from all bit patterns, every optional part present or not,
    /// ids and targets of every size.
    fn record() -> impl Strategy<Value = AgentRecord> {
        let target = prop_oneof![
            Just(TargetRecord::None),
            floats().prop_map(TargetRecord::Point),
            any::<u64>().prop_map(TargetRecord::Entity),
            any::<u64>().prop_map(TargetRecord::Pursue),
        ];
        let progress = (floats::<2>(), any::<bool>()).prop_map(|([c, s], r)| (c, s, r));
        (
            (
                any::<u64>(),
                floats(),
                proptest::option::of(floats()),
                floats(),
            ),
            (floats(), proptest::option::of(floats())),
            proptest::option::of((floats(), floats::<1>().prop_map(|[x]| x))),
            (
                proptest::option::of(floats()),
                proptest::option::of(floats()),
            ),
            (
                any::<bool>(),
                proptest::option::of(progress),
                target,
                proptest::option::of(any::<i32>()),
            ),
        )
            .prop_map(|(a, b, hold, c, d)| AgentRecord {
                id: a.0,
                translation: a.1,
                rotation: a.2,
                velocity: a.3,
                heading: b.0,
                last_valid_position: b.1,
                hold,
                wander: c.0,
                last_force: c.1,
                at_target: d.0,
                progress: d.1,
                target: d.2,
                floor: d.3,
            })
    }

    /// What postcard's derived deserialisation makes of `bytes`: the record, re-encoded (bit
    /// for bit, NaNs included), and how many bytes are left.
    fn through_serde(bytes: &[u8]) -> Option<(Vec<u8>, usize)> {
        let (record, rest) = postcard::take_from_bytes::<AgentRecord>(bytes).ok()?;
        Some((postcard::to_allocvec(&record).ok()?, rest.len()))
    }

    /// The same by [`Reader::record`].
    fn through_reader(bytes: &[u8]) -> Option<(Vec<u8>, usize)> {
        let mut reader = Reader::new(bytes);
        let record = reader.record()?;
        Some((postcard::to_allocvec(&record).ok()?, reader.rest().len()))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn the_reader_reads_what_postcard_writes(record in record()) {
            let bytes = postcard::to_allocvec(&record).expect("serialises");
            prop_assert_eq!(through_reader(&bytes), Some((bytes.clone(), 0)));
        }

        /// Damaged bytes (a record's with one byte changed, cut short, or noise) are read as
        /// postcard reads them: the same record, or none.
        #[test]
        fn the_reader_agrees_with_postcard_on_any_bytes(
            record in record(),
            at in any::<prop::sample::Index>(),
            byte in any::<u8>(),
            cut in any::<prop::sample::Index>(),
            noise in proptest::collection::vec(any::<u8>(), 0..80),
        ) {
            let mut bytes = postcard::to_allocvec(&record).expect("serialises");
            let k = at.index(bytes.len());
            bytes[k] = byte;
            prop_assert_eq!(through_reader(&bytes), through_serde(&bytes));
            let short = &bytes[..cut.index(bytes.len())];
            prop_assert_eq!(through_reader(short), through_serde(short));
            prop_assert_eq!(through_reader(&noise), through_serde(&noise));
        }

        /// Stepping over a record accepts the bytes [`Reader::record`] accepts, leaves as
        /// many, and gives its id and target, on whole, damaged, cut and random bytes.
        #[test]
        fn stepping_over_a_record_agrees_with_reading_it(
            record in record(),
            at in any::<prop::sample::Index>(),
            byte in any::<u8>(),
            cut in any::<prop::sample::Index>(),
            noise in proptest::collection::vec(any::<u8>(), 0..80),
        ) {
            let whole = postcard::to_allocvec(&record).expect("serialises");
            let mut damaged = whole.clone();
            let k = at.index(damaged.len());
            damaged[k] = byte;
            let short = &whole[..cut.index(whole.len())];
            for bytes in [&whole[..], &damaged[..], short, &noise[..]] {
                let (mut read, mut stepped) = (Reader::new(bytes), Reader::new(bytes));
                let record = read.record().map(|r| (r.id, r.target));
                let step = stepped.id_and_target();
                // Targets compared by their bits: a point may hold NaNs.
                let bits = |t: Option<(u64, TargetRecord)>| t.map(|(id, t)| (id, postcard::to_allocvec(&t).ok()));
                prop_assert_eq!(bits(step), bits(record));
                if record.is_some() {
                    prop_assert_eq!(stepped.rest().len(), read.rest().len());
                }
            }
        }
    }
}
