//! What a correction of a bad value says, and the checks that make values safe to simulate.

use core::fmt;

use glam::Vec3;

use crate::LARGEST_PARAMETER;

/// A number or a vector, as found in or put into a [`Correction`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A scalar.
    Scalar(f32),
    /// A vector.
    Vector(Vec3),
    /// Nothing: the value was dropped.
    None,
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Scalar(x) => write!(f, "{x}"),
            Value::Vector(v) => write!(f, "({}, {}, {})", v.x, v.y, v.z),
            Value::None => f.write_str("nothing"),
        }
    }
}

/// A value that was not usable and what replaced it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Correction {
    /// The field, e.g. `perception.neighbour_radius` or `velocity`.
    pub field: &'static str,
    /// The value found.
    pub found: Value,
    /// The value used instead.
    pub used: Value,
    /// Why the value was refused, e.g. "must be finite".
    pub rule: &'static str,
}

impl fmt::Display for Correction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} = {} {}; using {}",
            self.field, self.found, self.rule, self.used
        )
    }
}

/// Collects corrections while checking values.
#[derive(Default)]
pub(crate) struct Checker {
    pub(crate) corrections: Vec<Correction>,
}

impl Checker {
    pub(crate) fn fix(
        &mut self,
        field: &'static str,
        value: &mut f32,
        used: f32,
        rule: &'static str,
    ) {
        self.corrections.push(Correction {
            field,
            found: Value::Scalar(*value),
            used: Value::Scalar(used),
            rule,
        });
        *value = used;
    }

    /// Records a correction of any kind.
    pub(crate) fn record(
        &mut self,
        field: &'static str,
        found: Value,
        used: Value,
        rule: &'static str,
    ) {
        self.corrections.push(Correction {
            field,
            found,
            used,
            rule,
        });
    }

    /// Replaces a non-finite value with `fallback`, and caps the magnitude of a finite one at
    /// [`LARGEST_PARAMETER`].
    pub(crate) fn finite(&mut self, field: &'static str, value: &mut f32, fallback: f32) {
        if !value.is_finite() {
            self.fix(field, value, fallback, "must be finite");
        } else if value.abs() > LARGEST_PARAMETER {
            let capped = LARGEST_PARAMETER.copysign(*value);
            self.fix(
                field,
                value,
                capped,
                "must be at most 1e15 in size (the squares of larger values overflow)",
            );
        }
    }

    /// Replaces a non-finite or negative value with `fallback`.
    pub(crate) fn non_negative(&mut self, field: &'static str, value: &mut f32, fallback: f32) {
        self.finite(field, value, fallback);
        if *value < 0.0 {
            self.fix(field, value, fallback, "must not be negative");
        }
    }

    /// Replaces a non-finite, zero or negative value with `fallback`.
    pub(crate) fn positive(&mut self, field: &'static str, value: &mut f32, fallback: f32) {
        self.finite(field, value, fallback);
        if *value <= 0.0 {
            self.fix(field, value, fallback, "must be positive");
        }
    }

    /// Replaces a vector with any non-finite component by `fallback`, whole: one bad component
    /// makes the others suspect too.
    pub(crate) fn finite_vec(&mut self, field: &'static str, value: &mut Vec3, fallback: Vec3) {
        if !value.is_finite() {
            self.record(
                field,
                Value::Vector(*value),
                Value::Vector(fallback),
                "must be finite",
            );
            *value = fallback;
        }
    }
}
