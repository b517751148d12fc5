//! Run an example for a fixed number of frames, save a screenshot and exit: how CI runs the
//! examples for real and how the README's pictures are taken.
//!
//! Set `BEVY_FLOCK_CAPTURE=FRAMES:PATH`: after `FRAMES` frames the primary window is saved to
//! `PATH` (PNG), and the app exits cleanly half a second of frames later. On exit it logs the
//! mean frame time after the first 30 frames, which include start-up.

use std::path::PathBuf;
use std::time::Duration;

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};

/// Frames left out of the frame-time figure: shader compilation and first uploads.
const WARM_UP_FRAMES: u32 = 30;
/// Frames between asking for the screenshot and exiting, so that it is written.
const FRAMES_TO_SAVE: u32 = 30;

/// Reads `BEVY_FLOCK_CAPTURE`; does nothing when it is not set.
pub struct CapturePlugin;

impl Plugin for CapturePlugin {
    fn build(&self, app: &mut App) {
        let Ok(spec) = std::env::var("BEVY_FLOCK_CAPTURE") else {
            return;
        };
        let parsed = spec
            .split_once(':')
            .and_then(|(frames, path)| Some((frames.parse().ok()?, PathBuf::from(path))));
        let Some((frames, path)) = parsed else {
            error!("BEVY_FLOCK_CAPTURE={spec:?} is not FRAMES:PATH; not capturing");
            return;
        };
        app.insert_resource(Capture {
            frames,
            path,
            frame: 0,
            warm_since: Duration::ZERO,
        })
        .add_systems(Last, capture);
    }
}

#[derive(Resource)]
struct Capture {
    frames: u32,
    path: PathBuf,
    frame: u32,
    warm_since: Duration,
}

fn capture(
    mut commands: Commands,
    mut capture: ResMut<Capture>,
    time: Res<Time<Real>>,
    mut exit: MessageWriter<AppExit>,
) {
    capture.frame += 1;
    let frame = capture.frame;
    if frame == WARM_UP_FRAMES {
        capture.warm_since = time.elapsed();
    }
    if frame == capture.frames {
        commands
            .spawn(Screenshot::primary_window())
            .observe(save_to_disk(capture.path.clone()));
    }
    if frame == capture.frames + FRAMES_TO_SAVE {
        let measured = frame.saturating_sub(WARM_UP_FRAMES).max(1);
        let mean = (time.elapsed() - capture.warm_since) / measured;
        info!(
            "captured {} after {} frames; mean frame time {:.1} ms over the last {measured}",
            capture.path.display(),
            capture.frames,
            mean.as_secs_f64() * 1000.0,
        );
        exit.write(AppExit::Success);
    }
}
