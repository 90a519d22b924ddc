//! Helpers for the unit tests.

/// A deterministic pseudo-random stream (xorshift64): the tests' inputs, reproducible and
/// without a dependency. A zero seed would stay zero, so it starts from 1 instead.
pub fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed.max(1);
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}
