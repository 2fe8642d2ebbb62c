//! A progress bar on stderr, shown only when stderr is a terminal and the merge is long.

use std::io::IsTerminal;
use std::sync::OnceLock;

use indicatif::{ProgressBar, ProgressStyle};

/// Inputs below this count finish too fast for a bar to help.
const MIN_INPUTS_FOR_BAR: usize = 16;

/// Progress of a merge, in inputs: a bar once the driver says how many inputs there are.
#[derive(Debug)]
pub struct Bar {
    disabled: bool,
    bar: OnceLock<Option<ProgressBar>>,
}

impl Bar {
    /// A bar, or nothing if `disabled`.
    pub fn new(disabled: bool) -> Self {
        Bar {
            disabled,
            bar: OnceLock::new(),
        }
    }

    fn get(&self) -> Option<&ProgressBar> {
        self.bar.get().and_then(Option::as_ref)
    }
}

impl pgo_merge::pipeline::Progress for Bar {
    fn start(&self, total: usize) {
        let show = !self.disabled && total >= MIN_INPUTS_FOR_BAR && std::io::stderr().is_terminal();
        let _ = self.bar.set(show.then(|| {
            let b = ProgressBar::new(total as u64);
            if let Ok(style) = ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} inputs ({per_sec}, eta {eta})",
            ) {
                b.set_style(style.progress_chars("=> "));
            }
            b
        }));
    }

    fn set(&self, done: usize) {
        if let Some(b) = self.get() {
            b.set_position(done as u64);
        }
    }

    fn finish(&self) {
        if let Some(b) = self.get() {
            b.finish_and_clear();
        }
    }
}
