//! "The newest request wins": each of the app's requests to its workers (a load, the
//! window's inspection, the compared window's, the Data set pane's survey) is numbered, and
//! a reply is taken only if it answers the newest; what was last asked is kept, so the same
//! question is not asked twice.

/// The newest request for a key `K` (the settings a reply depends on).
#[derive(Debug, Clone)]
pub struct Latest<K> {
    gen: u64,
    asked: Option<K>,
}

impl<K> Default for Latest<K> {
    fn default() -> Self {
        Latest {
            gen: 0,
            asked: None,
        }
    }
}

impl<K: PartialEq> Latest<K> {
    /// A new request's generation when `key` is not what was last asked, else None (the
    /// answer in flight, or already in, is for it).
    pub fn ask(&mut self, key: K) -> Option<u64> {
        if self.asked.as_ref() == Some(&key) {
            return None;
        }
        Some(self.renew(key))
    }

    /// A new request's generation whatever was asked before (a file opened again).
    pub fn renew(&mut self, key: K) -> u64 {
        self.gen += 1;
        self.asked = Some(key);
        self.gen
    }

    /// Whether a reply numbered `gen` answers the newest request.
    pub fn is_current(&self, gen: u64) -> bool {
        gen == self.gen
    }

    /// Whether `key` is what was last asked.
    pub fn asked_for(&self, key: &K) -> bool {
        self.asked.as_ref() == Some(key)
    }

    /// Forget what was asked, so the next [`Latest::ask`] goes out even for the same key
    /// (the data it was asked of changed). Replies in flight stay current.
    pub fn forget(&mut self) {
        self.asked = None;
    }
}

#[cfg(test)]
mod tests {
    use super::Latest;

    #[test]
    fn the_newest_request_wins_and_the_same_one_is_not_asked_twice() {
        let mut l = Latest::default();
        let a = l.ask("a").expect("the first request goes out");
        assert_eq!(l.ask("a"), None, "asked already");
        let b = l.ask("b").expect("another key goes out");
        assert!(
            !l.is_current(a) && l.is_current(b),
            "the older reply is dropped"
        );
        l.forget();
        let c = l.ask("b").expect("asked again once forgotten");
        assert!(l.is_current(c) && !l.is_current(b));
        assert!(l.asked_for(&"b"));
        assert_eq!(l.renew("b"), c + 1);
    }
}
