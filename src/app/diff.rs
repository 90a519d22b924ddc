//! A line diff of two texts with the changed words inside changed lines marked (the
//! `similar` crate): what Compare shows of two prompts.

use similar::{ChangeTag, TextDiff};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Same,
    /// Only in A.
    Removed,
    /// Only in B.
    Added,
}

/// One line of the diff: where it comes from, and its text in pieces, each marked when it
/// is what changed within the line.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffLine {
    pub side: Side,
    pub pieces: Vec<(bool, String)>,
}

pub fn diff_lines(a: &str, b: &str) -> Vec<DiffLine> {
    let diff = TextDiff::from_lines(a, b);
    let mut out = Vec::new();
    for op in diff.ops() {
        for change in diff.iter_inline_changes(op) {
            let side = match change.tag() {
                ChangeTag::Equal => Side::Same,
                ChangeTag::Delete => Side::Removed,
                ChangeTag::Insert => Side::Added,
            };
            let pieces = change
                .iter_strings_lossy()
                .map(|(marked, s)| (marked, s.trim_end_matches('\n').to_string()))
                .filter(|(_, s)| !s.is_empty())
                .collect();
            out.push(DiffLine { side, pieces });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inserted_line_leaves_the_rest_unchanged_and_words_are_marked() {
        let a = "one\ntwo SNR 12.0 dB\nthree\nfour";
        let b = "zero\none\ntwo SNR 14.5 dB\nthree\nfour";
        let d = diff_lines(a, b);
        let sides: Vec<Side> = d.iter().map(|l| l.side).collect();
        assert_eq!(
            sides,
            [
                Side::Added,
                Side::Same,
                Side::Removed,
                Side::Added,
                Side::Same,
                Side::Same
            ]
        );
        let marked: Vec<&str> = d[3]
            .pieces
            .iter()
            .filter(|p| p.0)
            .map(|p| p.1.as_str())
            .collect();
        assert_eq!(marked, ["14.5"]);
    }
}
