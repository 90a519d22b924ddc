//! Words every message of the sweep shares: a short list, and where a file is.

use wavebench_core::data::Table;

/// The first `shown` of `items`, then how many more: "a, b, c and 4 more{noun}".
pub(crate) fn first_few<S: AsRef<str>>(items: &[S], shown: usize, noun: &str) -> String {
    let first: Vec<&str> = items.iter().take(shown).map(AsRef::as_ref).collect();
    match items.len().saturating_sub(shown) {
        0 => first.join(", "),
        more => format!("{} and {more} more{noun}", first.join(", ")),
    }
}

/// Where a message about `table` says it is: its name in the data set, or its path when it
/// is the only file (its name is then empty).
pub(crate) fn place(name: &str, table: &Table) -> String {
    if name.is_empty() {
        table.path.display().to_string()
    } else {
        name.to_string()
    }
}
