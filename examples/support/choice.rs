//! An option picked from a row of [`button`](super::button)s, or by the digit keys: `1` the
//! first option, `2` the second, and so on.

use bevy::prelude::*;

use super::button::PressedButtons;

/// The digit keys from 1 to 9, which pick the options of a row of buttons in order.
const DIGIT_KEYS: [KeyCode; 9] = [
    KeyCode::Digit1,
    KeyCode::Digit2,
    KeyCode::Digit3,
    KeyCode::Digit4,
    KeyCode::Digit5,
    KeyCode::Digit6,
    KeyCode::Digit7,
    KeyCode::Digit8,
    KeyCode::Digit9,
];

/// The option picked this frame, if any: the last of `options`' buttons pressed, else the
/// option whose place in `options` a digit key just pressed gives (`1` the first).
pub fn picked<A: Component + Copy>(
    buttons: &PressedButtons<A>,
    keys: &ButtonInput<KeyCode>,
    options: &[A],
) -> Option<A> {
    let keyed = (DIGIT_KEYS.iter())
        .zip(options)
        .find(|&(&key, _)| keys.just_pressed(key))
        .map(|(_, &option)| option);
    buttons.iter().copied().last().or(keyed)
}
