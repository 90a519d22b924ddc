//! The repository stands on its own: nothing reads a folder beside the checkout, the
//! benchmark data is the unmodified published file, every relative link in the
//! documentation resolves, code cites pages that exist, and the example prompts in the
//! documentation are what the CLI prints today.
//!
//! `WAVEBENCH_BLESS=1 cargo test --test repository` rewrites the examples from the CLI.

mod common;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The repository's files: git's list in a checkout, else every file outside the build
/// and VCS folders (a tarball).
fn tracked_files() -> Vec<PathBuf> {
    let listed = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root())
        .output()
        .ok()
        .filter(|o| o.status.success() && !o.stdout.is_empty());
    if let Some(o) = listed {
        return o
            .stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| root().join(String::from_utf8_lossy(p).as_ref()))
            .filter(|p| p.is_file())
            .collect();
    }
    let mut out = Vec::new();
    let mut stack = vec![root()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            let name = e.file_name();
            if name == "target" || name == ".git" {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

fn relative(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

#[test]
fn no_file_reads_a_folder_beside_the_checkout() {
    // Spelled in two pieces so that this file does not match itself.
    let needle = format!("..{}", "/shared");
    let files = tracked_files();
    assert!(files.len() > 100, "only {} files listed", files.len());
    let offending: Vec<String> = files
        .iter()
        .filter(|p| {
            std::fs::read(p)
                .map(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
                .unwrap_or(false)
        })
        .map(|p| relative(p))
        .collect();
    assert!(offending.is_empty(), "{needle} in {offending:?}");
}

#[test]
fn etth1_is_the_unmodified_etdataset_file() {
    use md5::{Digest, Md5};
    let bytes = std::fs::read(common::etth1()).expect("sample_data/ETTh1.csv");
    let digest = Md5::digest(&bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        hex, "8381763947c85f4be6ac456c508460d6",
        "see sample_data/README.md"
    );
}

#[test]
fn no_code_cites_the_old_spec() {
    let word = format!("SP{}", "EC");
    let offending: Vec<String> = tracked_files()
        .iter()
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("rs" | "py" | "toml" | "sh" | "md" | "jinja")
            ) || p.file_name().is_some_and(|n| n == "Makefile")
        })
        .filter(|p| {
            std::fs::read_to_string(p).is_ok_and(|t| {
                t.match_indices(&word).any(|(i, _)| {
                    let before = t[..i].chars().next_back();
                    let after = t[i + word.len()..].chars().next();
                    !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                        && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
                })
            })
        })
        .map(|p| relative(p))
        .collect();
    assert!(offending.is_empty(), "{word} cited in {offending:?}");
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The lines of a Markdown file outside fenced code blocks.
fn prose(markdown: &str) -> impl Iterator<Item = &str> {
    let mut fenced = false;
    markdown.lines().filter(move |line| {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            return false;
        }
        !fenced
    })
}

/// The anchors of a Markdown file's headings.
fn anchors(markdown: &str) -> Vec<String> {
    prose(markdown)
        .filter(|line| line.starts_with('#'))
        .map(|line| slug(line.trim_start_matches('#')))
        .collect()
}

/// Every `[text](target)` of a Markdown file, outside code blocks and inline code.
fn links(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose(markdown) {
        // Drop inline code spans: `](x)` inside backticks is not a link.
        let text: String = line.split('`').step_by(2).collect::<Vec<_>>().join("");
        let mut rest = text.as_str();
        while let Some(i) = rest.find("](") {
            let tail = &rest[i + 2..];
            let Some(end) = tail.find(')') else { break };
            out.push(tail[..end].to_string());
            rest = &tail[end..];
        }
    }
    out
}

/// Whether `target` (a relative path, optionally with `#anchor`) resolves from `from`.
fn check_target(from: &Path, target: &str) -> Result<(), String> {
    let (path, anchor) = match target.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (target, None),
    };
    let file = if path.is_empty() {
        from.to_path_buf()
    } else {
        from.parent().unwrap().join(path)
    };
    if !file.exists() {
        return Err(format!("{target}: no such file"));
    }
    if let Some(a) = anchor {
        let text = std::fs::read_to_string(&file).map_err(|e| format!("{target}: {e}"))?;
        if !anchors(&text).iter().any(|h| h == a) {
            return Err(format!("{target}: no heading with that anchor"));
        }
    }
    Ok(())
}

fn markdown_files() -> Vec<PathBuf> {
    tracked_files()
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect()
}

#[test]
fn every_relative_link_in_the_documentation_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for md in markdown_files() {
        let text = std::fs::read_to_string(&md).unwrap();
        for target in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            if let Err(e) = check_target(&md, &target) {
                broken.push(format!("{}: {e}", relative(&md)));
            }
        }
    }
    assert!(checked > 40, "only {checked} links found");
    assert!(broken.is_empty(), "{broken:#?}");
}

#[test]
fn code_comments_cite_pages_and_anchors_that_exist() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in tracked_files() {
        if !file
            .extension()
            .is_some_and(|e| e == "rs" || e == "py" || e == "jinja")
        {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for (i, _) in text.match_indices("docs/") {
            let cite: String = text[i..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || "/._-#".contains(*c))
                .collect();
            let cite = cite.trim_end_matches(['.', ')']);
            if !cite.contains(".md") {
                continue;
            }
            checked += 1;
            if let Err(e) = check_target(&root().join("README.md"), cite) {
                broken.push(format!("{}: {e}", relative(&file)));
            }
        }
    }
    assert!(checked > 20, "only {checked} citations found");
    assert!(broken.is_empty(), "{broken:#?}");
}

/// The command of docs/prompts.md's examples: ETTh1's first window of oil temperature.
fn example_prompt(template: &str) -> String {
    let etth1 = common::etth1();
    let o = common::wavebench(&[
        "prompts",
        etth1.to_str().unwrap(),
        "--columns",
        "OT",
        "--rows",
        "0..512",
        "--seq-len",
        "512",
        "--description",
        "Electricity transformer temperature, hourly",
        "--pred-len",
        "96",
        "--template",
        template,
        "--quiet",
        "-o",
        "-",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one window, one channel: {stdout}");
    let record: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    record["prompt"].as_str().unwrap().to_string()
}

/// Each `<!-- example: TEMPLATE -->` followed by a ```text block: (template, the block's
/// byte range).
fn examples(markdown: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let marker = "<!-- example: ";
    let mut out = Vec::new();
    for (i, _) in markdown.match_indices(marker) {
        let rest = &markdown[i + marker.len()..];
        let name = rest[..rest.find(" -->").expect("closed marker")].to_string();
        let open = "```text\n";
        let start = i
            + markdown[i..]
                .find(open)
                .expect("a text block after the marker")
            + open.len();
        let end = start + markdown[start..].find("```").expect("a closed block");
        out.push((name, start..end));
    }
    out
}

#[test]
fn the_documented_example_prompts_are_what_the_cli_prints() {
    let bless = std::env::var_os("WAVEBENCH_BLESS").is_some();
    let mut seen = std::collections::BTreeSet::new();
    for file in ["README.md", "docs/prompts.md"] {
        let path = root().join(file);
        let mut text = std::fs::read_to_string(&path).unwrap();
        let found = examples(&text);
        assert!(!found.is_empty(), "{file}: no examples");
        // From the end, so that rewriting a block keeps the earlier ranges valid.
        for (template, range) in found.into_iter().rev() {
            let want = example_prompt(&template) + "\n";
            seen.insert(template.clone());
            if bless {
                text.replace_range(range, &want);
            } else {
                assert_eq!(
                    text[range].to_string(),
                    want,
                    "{file}: the {template} example is stale (WAVEBENCH_BLESS=1 rewrites it)"
                );
            }
        }
        if bless {
            std::fs::write(&path, text).unwrap();
        }
    }
    let builtins = ["dwt-balanced", "dwt-detailed", "dwt-minimal", "timellm"];
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), builtins);
}

/// A crate's modules by path (`["app", "worker"]`) with their source, from its `src/`.
fn modules(src: &Path) -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    for p in rust_files(src) {
        let rel = p.strip_prefix(src).unwrap();
        let mut path: Vec<String> = rel
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(
            path.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            path.pop();
        }
        // Test files beside a module (`tests.rs`) are the module's own.
        if path.last().is_some_and(|l| l == "tests") {
            continue;
        }
        out.push((path, std::fs::read_to_string(&p).unwrap()));
    }
    out
}

/// The modules `text` (module `me`'s source) names through `crate::`, `super::` or
/// `self::` paths, resolved to the deepest known module.
fn imports(me: &[String], text: &str, known: &[Vec<String>]) -> Vec<Vec<String>> {
    // A module's own tests (at its end) may use whatever they check against.
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text);
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let starts = ["crate::", "super::", "self::"]
        .iter()
        .flat_map(|k| code.match_indices(k).map(|(i, _)| i).collect::<Vec<_>>())
        .filter(|&i| {
            i == 0
                || !(bytes[i - 1].is_ascii_alphanumeric()
                    || bytes[i - 1] == b'_'
                    || bytes[i - 1] == b':')
        });
    for start in starts {
        let rest = &code[start..];
        let mut segs: Vec<&str> = Vec::new();
        let mut tail = rest;
        loop {
            let end = tail
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(tail.len());
            segs.push(&tail[..end]);
            tail = &tail[end..];
            match tail.strip_prefix("::") {
                Some(t) if t.starts_with('{') => {
                    // `super::{a, b::c}`: each first-level item.
                    let close = t.find('}').unwrap_or(t.len());
                    let base: Vec<&str> = segs.clone();
                    for item in t[1..close].split(',') {
                        let first = item.trim().split("::").next().unwrap_or("").trim();
                        let mut v = base.clone();
                        v.push(first);
                        push_resolved(me, &v, known, &mut out);
                    }
                    segs.clear();
                    break;
                }
                Some(t) => tail = t,
                None => break,
            }
        }
        if !segs.is_empty() {
            push_resolved(me, &segs, known, &mut out);
        }
    }
    out.sort();
    out.dedup();
    out
}

fn push_resolved(me: &[String], segs: &[&str], known: &[Vec<String>], out: &mut Vec<Vec<String>>) {
    let mut path: Vec<String> = match segs.first() {
        Some(&"crate") => Vec::new(),
        Some(&"self") => me.to_vec(),
        Some(&"super") => {
            let mut p = me.to_vec();
            let mut k = 0;
            while segs.get(k) == Some(&"super") {
                p.pop();
                k += 1;
            }
            p.extend(segs[k..].iter().map(|s| s.to_string()));
            return push_deepest(p, known, out);
        }
        _ => return,
    };
    path.extend(segs[1..].iter().map(|s| s.to_string()));
    push_deepest(path, known, out)
}

fn push_deepest(mut path: Vec<String>, known: &[Vec<String>], out: &mut Vec<Vec<String>>) {
    while !path.is_empty() && !known.contains(&path) {
        path.pop();
    }
    out.push(path);
}

/// No module imports a module that imports it back (directly or round a longer loop), in
/// the core, the files, the sweep and the root crate: imports run one way, so each room can be read before the
/// rooms that use it. A module and its own submodules (a room and its map) are exempt.
#[test]
fn no_module_imports_a_module_that_imports_it_back() {
    // Each crate with fewer modules than it has, so that a walk that finds none fails.
    for (src, at_least) in [
        (root().join("src"), 15),
        (root().join("crates/core/src"), 15),
        (root().join("crates/files/src"), 6),
        (root().join("crates/sweep/src"), 15),
    ] {
        let mods = modules(&src);
        let known: Vec<Vec<String>> = mods.iter().map(|(p, _)| p.clone()).collect();
        let related = |a: &[String], b: &[String]| a.starts_with(b) || b.starts_with(a);
        let edges: Vec<(usize, usize)> = mods
            .iter()
            .enumerate()
            .flat_map(|(i, (me, text))| {
                imports(me, text, &known)
                    .into_iter()
                    .filter(|t| !related(me, t))
                    .filter_map(|t| known.iter().position(|k| *k == t))
                    .map(move |j| (i, j))
                    .collect::<Vec<_>>()
            })
            .collect();
        // A loop: some module reaches itself.
        let name = |i: usize| format!("{}::{}", src.display(), known[i].join("::"));
        for start in 0..known.len() {
            let mut seen = vec![false; known.len()];
            let mut stack: Vec<(usize, Vec<usize>)> = vec![(start, vec![start])];
            while let Some((at, trail)) = stack.pop() {
                for &(_, to) in edges.iter().filter(|(from, _)| *from == at) {
                    if to == start {
                        let names: Vec<String> = trail.iter().map(|&k| name(k)).collect();
                        panic!("an import loop: {} -> {}", names.join(" -> "), name(start));
                    }
                    if !seen[to] {
                        seen[to] = true;
                        let mut t = trail.clone();
                        t.push(to);
                        stack.push((to, t));
                    }
                }
            }
        }
        assert!(
            known.len() > at_least,
            "{}: {} modules",
            src.display(),
            known.len()
        );
    }
}

/// The wheel's crates keep off polars, egui and libtorch, each of which would add minutes
/// to every build of the wheel (polars alone 6 min 38 s on 2 cores): the dependency graph
/// `cargo metadata` resolves for wavebench-python holds none of them.
#[test]
fn the_wheel_builds_without_polars_egui_or_libtorch() {
    let out = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--offline"])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let nodes = meta["resolve"]["nodes"].as_array().unwrap();
    let name_of = |id: &str| -> String {
        meta["packages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id)
            .map(|p| p["name"].as_str().unwrap().to_string())
            .unwrap()
    };
    let node = |id: &str| nodes.iter().find(|n| n["id"] == id).unwrap();
    let wheel = nodes
        .iter()
        .find(|n| name_of(n["id"].as_str().unwrap()) == "wavebench-python")
        .expect("wavebench-python in the workspace");
    // Every package the wheel's normal (non-dev, non-build) dependencies reach.
    let mut seen = std::collections::BTreeSet::new();
    let mut todo = vec![wheel["id"].as_str().unwrap().to_string()];
    while let Some(id) = todo.pop() {
        if !seen.insert(name_of(&id)) {
            continue;
        }
        for dep in node(&id)["deps"].as_array().unwrap() {
            let normal = dep["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["kind"].is_null());
            if normal {
                todo.push(dep["pkg"].as_str().unwrap().to_string());
            }
        }
    }
    assert!(
        seen.contains("wavebench-sweep") && seen.contains("csv"),
        "{seen:?}"
    );
    let heavy: Vec<&String> = seen
        .iter()
        .filter(|n| {
            n.starts_with("polars") || n.starts_with("egui") || *n == "tch" || *n == "torch-sys"
        })
        .collect();
    assert!(heavy.is_empty(), "the wheel depends on {heavy:?}");
}

/// The functions of a source file: each `fn`'s name and its length in lines, from its
/// signature to the closing brace at its own indentation (rustfmt's layout), outside
/// `#[cfg(test)]` modules.
fn function_lengths(text: &str) -> Vec<(String, usize, bool)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break; // test modules sit at the end of a file
        }
        let indent = line.len() - line.trim_start().len();
        let rest = line.trim_start();
        let rest = rest
            .strip_prefix("pub(crate) ")
            .or_else(|| rest.strip_prefix("pub(super) "))
            .or_else(|| rest.strip_prefix("pub "))
            .unwrap_or(rest);
        let rest = rest.strip_prefix("const ").unwrap_or(rest);
        let rest = rest.strip_prefix("unsafe ").unwrap_or(rest);
        let Some(after) = rest.strip_prefix("fn ") else {
            continue;
        };
        let name: String = after
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let close = format!("{}}}", " ".repeat(indent));
        let Some(end) = lines[i + 1..].iter().position(|l| *l == close) else {
            continue; // a signature without a body (a trait's)
        };
        let marked = (1..=2).any(|k| i >= k && lines[i - k].contains("long: speed"));
        found.push((name, end + 2, marked));
    }
    found
}

/// No function outside tests is over 80 lines (issue 65 item 6), but a speed-critical
/// kernel whose split would cost speed, marked `// long: speed` on the line above it.
#[test]
fn functions_do_one_job() {
    let mut over = Vec::new();
    let crates = [
        "src",
        "crates/core/src",
        "crates/files/src",
        "crates/sweep/src",
        "crates/python/src",
    ];
    for src in crates {
        for path in rust_files(&root().join(src)) {
            let text = std::fs::read_to_string(&path).unwrap();
            let shown = relative(&path);
            for (name, len, marked) in function_lengths(&text) {
                if len > 80 && !marked {
                    over.push(format!("{shown}: fn {name} is {len} lines"));
                }
            }
        }
    }
    assert!(
        over.is_empty(),
        "split these (at most 80 lines), or mark a kernel whose split costs speed `// long: speed`:\n{}",
        over.join("\n")
    );
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
