//! "Did you mean …?": the known names nearest to a mistyped one.

/// Up to `k` of `candidates` closest to `name` by edit distance (ties in the given order),
/// and only those close enough to be a plausible typo.
pub fn nearest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    k: usize,
) -> Vec<String> {
    let mut scored: Vec<(usize, usize, &str)> = candidates
        .into_iter()
        .enumerate()
        .map(|(i, c)| (strsim::levenshtein(name, c), i, c))
        .collect();
    scored.sort();
    let best = scored.first().map_or(0, |s| s.0);
    scored
        .into_iter()
        .take_while(|s| s.0 <= best.max(2) + 1)
        .take(k)
        .map(|s| s.2.to_string())
        .collect()
}
/// `; did you mean a, b?` with the (up to 3) [`nearest`] candidates, or nothing where
/// none is close: the clause a refusal of an unknown name ends with.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let near = nearest(name, candidates, 3);
    if near.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", near.join(", "))
    }
}
