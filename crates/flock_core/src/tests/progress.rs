//! Stuck-agent detection, worked by hand.

use crate::Progress;

/// Step 0.5, one-second ticks, three seconds' patience: closing from 10 to 9 is progress; 9 to
/// 8.6 is not (under a step from the checkpoint, 9), so the third such tick reports the agent
/// stuck, once; reaching 8.4 (a step past 9) starts over, and a second stall reports again.
#[test]
fn a_stall_is_reported_once_per_stretch() {
    let mut progress = Progress::default();
    let report = |progress: &mut Progress, distance: f32| progress.update(distance, 0.5, 1.0, 3.0);
    assert!(!report(&mut progress, 10.0));
    assert!(!report(&mut progress, 9.0));
    assert_eq!(progress.checkpoint, 9.0);
    assert!(!report(&mut progress, 8.8));
    assert!(!report(&mut progress, 8.7));
    assert_eq!(progress.stalled_for, 2.0);
    assert!(report(&mut progress, 8.6), "three seconds without a step");
    assert!(!report(&mut progress, 8.6), "reported once");
    assert!(!report(&mut progress, 9.5), "moving away is no progress");
    assert!(!report(&mut progress, 8.4));
    assert_eq!((progress.checkpoint, progress.stalled_for), (8.4, 0.0));
    assert!(!progress.reported);
    for _ in 0..2 {
        assert!(!report(&mut progress, 8.4));
    }
    assert!(report(&mut progress, 8.4), "a second stall");
}

/// With no step, any approach at all is progress; standing still is not.
#[test]
fn with_no_step_any_approach_counts() {
    let mut progress = Progress::default();
    for k in 0..100 {
        assert!(!progress.update(5.0 - k as f32 * 1e-3, 0.0, 0.1, 0.5));
    }
    // The first 4.9 is still an approach (from 4.901); the nine after it stall.
    let stuck = (0..10)
        .filter(|_| progress.update(4.9, 0.0, 0.1, 0.5))
        .count();
    assert_eq!(stuck, 1);
    assert!((progress.stalled_for - 0.9).abs() < 1e-5);
}

/// Values that are not finite, or negative, change nothing; a reset starts over.
#[test]
fn bad_values_change_nothing() {
    let mut progress = Progress::default();
    assert!(!progress.update(3.0, 0.5, 0.1, 1.0));
    let before = progress;
    for (distance, step, dt, patience) in [
        (f32::NAN, 0.5, 0.1, 1.0),
        (2.0, f32::INFINITY, 0.1, 1.0),
        (2.0, 0.5, -0.1, 1.0),
        (2.0, 0.5, 0.1, f32::NAN),
        (-1.0, 0.5, 0.1, 1.0),
    ] {
        assert!(!progress.update(distance, step, dt, patience));
        assert_eq!(progress, before);
    }
    // Still the stretch that began at 3: a long tick there is a stall.
    assert!(progress.update(3.0, 0.5, 5.0, 1.0));
    progress.reset();
    assert_eq!(progress, Progress::default());
}
