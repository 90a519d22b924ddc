//! The status line at the window's foot: what the app said last, and the loaded file's
//! line that it says again once an error in the view's settings is fixed. Every message
//! goes through [`Status::say`]; a file's load ([`Status::loaded`]) and the view's
//! settings failing or answering again ([`Status::failed`], [`Status::answered`]) are its
//! only transitions.

#[derive(Debug)]
pub struct Status {
    line: String,
    /// The loaded file's line, said again once an error it gave way to is fixed.
    loaded: String,
    /// Why the view's settings give no result (the panes show it instead of a spinner).
    failed: Option<String>,
}

impl Status {
    pub fn new(line: impl Into<String>) -> Self {
        Status {
            line: line.into(),
            loaded: String::new(),
            failed: None,
        }
    }

    /// What the line says now.
    pub fn line(&self) -> &str {
        &self.line
    }

    /// Say `line`.
    pub fn say(&mut self, line: impl Into<String>) {
        self.line = line.into();
    }

    /// A file loaded: its line, kept to be said again after an error; no error stands.
    pub fn loaded(&mut self, line: String) {
        self.say(line.clone());
        self.loaded = line;
        self.failed = None;
    }

    /// The view's settings give no result: why, on the line and in the panes.
    pub fn failed(&mut self, why: String) {
        self.say(why.clone());
        self.failed = Some(why);
    }

    /// The view's settings give a result again: the error it fixed gives way to the
    /// loaded file's line.
    pub fn answered(&mut self) {
        if self.failed.take().is_some() {
            let loaded = self.loaded.clone();
            self.say(loaded);
        }
    }

    /// Why the view's settings give no result, while they give none.
    pub fn why_failed(&self) -> Option<&str> {
        self.failed.as_deref()
    }
}
