//! Writing results: a regular file (or a new path) is replaced atomically (temporary file
//! in the same folder, then rename), so a failed or interrupted run never leaves a half
//! file; a symbolic link is followed and its target replaced, never the link; a device, a
//! FIFO or a socket (`/dev/stdout`, a pipe) is written to directly; `-` is standard output.

mod feature_table;
mod records;

pub use records::{stream_features, stream_prompts, write_features, write_prompts, FeatureFormat};

use crate::error::{Error, Result};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use wavebench_core::names::{Opt, OPTION};

/// Temporary files being written, removed by `remove_temporaries` when the process is
/// interrupted (Ctrl-C, SIGTERM) so no hidden half file stays behind.
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Remove every temporary file still being written (called on an interrupt).
pub fn remove_temporaries() {
    if let Ok(mut list) = TEMPORARIES.lock() {
        for p in list.drain(..) {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn track(tmp: &Path, on: bool) {
    if let Ok(mut list) = TEMPORARIES.lock() {
        if on {
            list.push(tmp.to_path_buf());
        } else {
            list.retain(|p| p != tmp);
        }
    }
}

/// Where to write for `path`: the file itself, or what its symbolic links end at; for a
/// dangling chain, the path its last link names (to be created). A loop of links is
/// refused: writing "beside" it would turn one of the links into a plain file.
fn resolve(path: &Path) -> Result<PathBuf> {
    let is_link = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
    let looped = || {
        Error::input(format!(
            "{}: a loop of symbolic links; name a file or a link that ends at one",
            path.display()
        ))
    };
    let mut at = path.to_path_buf();
    // Linux follows at most 40 links (ELOOP); so do we.
    for _ in 0..=40 {
        if !is_link(&at) {
            return Ok(at);
        }
        match std::fs::metadata(&at) {
            // The chain ends at something that exists. `/dev/stdout` ends at a pipe that
            // has no path (`canonicalize` fails) but opens all the same.
            Ok(_) => return Ok(std::fs::canonicalize(&at).unwrap_or(at)),
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(looped()),
            Err(_) => {}
        }
        let target = std::fs::read_link(&at).map_err(|e| Error::io(path, "read the link", e))?;
        at = match at.parent() {
            Some(dir) if target.is_relative() => dir.join(target),
            _ => target,
        };
    }
    Err(looped())
}

/// `path` as the absolute place its bytes live: links followed, `.`/`..` and the
/// folders' own links resolved; for a file yet to be made, its folder resolved.
fn real_place(path: &Path) -> Result<PathBuf> {
    let target = resolve(path)?;
    if let Ok(p) = std::fs::canonicalize(&target) {
        return Ok(p);
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    Ok(match target.file_name() {
        Some(name) => dir.join(name),
        None => dir,
    })
}

fn closed_stdout() -> Error {
    Error::about(
        &[Opt::Output],
        format!("standard output is closed (the runtime put /dev/null in its place): nothing written to - would reach anyone; name a file with {OPTION}"),
    )
}

/// One file a command will write, and the option that names it (`-o`, `--write-config`).
#[derive(Debug, Clone)]
pub struct Destination {
    pub option: &'static str,
    pub path: PathBuf,
    /// The run creates the file's folder (`--timellm-bank DIR`): the folder may be
    /// missing, and then its parent must take it.
    pub makes_folder: bool,
}

impl Destination {
    /// A file in a folder that must exist.
    pub fn file(option: &'static str, path: &Path) -> Destination {
        Destination {
            option,
            path: path.to_path_buf(),
            makes_folder: false,
        }
    }
}

/// Refuse, before any work, an output that cannot be written or that would destroy what
/// the run reads or writes: a closed standard output; an output that is, or lies inside,
/// one of `inputs` (files, folders, or glob patterns, whose matches count) after following
/// links and `..`, or is the same file by another name (a hard link: same device and
/// inode); two outputs that are one file; an output whose folder is missing or not
/// writable. Devices and FIFOs are streams, never refused.
pub fn check_outputs(outputs: &[Destination], inputs: &[&Path]) -> Result<()> {
    let mut written: Vec<(&Destination, Place)> = Vec::with_capacity(outputs.len());
    for out in outputs {
        let path = out.path.as_path();
        if path.as_os_str() == "-" && stdout_is_closed() {
            // Said before any work, not after it.
            return Err(closed_stdout());
        }
        if path.as_os_str() == "-" || is_stream(path) {
            continue;
        }
        let place = Place::of(path)?;
        for &input in inputs {
            if let Some(how) = place.overlaps(input)? {
                return Err(Error::input(format!(
                    "{}: the output {how} the input {}; writing it would destroy the input: choose another {}",
                    path.display(),
                    input.display(),
                    out.option
                )));
            }
        }
        if let Some((other, _)) = written.iter().find(|(_, p)| p.same_file(&place)) {
            return Err(Error::input(format!(
                "{}: {} and {} name the same file ({}); one would overwrite the other: give them different files",
                path.display(),
                other.option,
                out.option,
                other.path.display()
            )));
        }
        writable_folder(&place.real, out)?;
        written.push((out, place));
    }
    Ok(())
}

/// Refuse, before any work, `output` (a `-o`) when [`check_outputs`] would.
pub fn refuse_input_as_output(output: &Path, inputs: &[&Path]) -> Result<()> {
    check_outputs(&[Destination::file("-o", output)], inputs)
}

/// Where a file's bytes live: its absolute path after links, and its device and inode
/// where it exists (another name for it, a hard link, has the same).
struct Place {
    real: PathBuf,
    id: Option<(u64, u64)>,
}

impl Place {
    fn of(path: &Path) -> Result<Place> {
        let real = real_place(path)?;
        Ok(Place {
            id: file_id(&real),
            real,
        })
    }

    fn same_file(&self, other: &Place) -> bool {
        self.real == other.real || (self.id.is_some() && self.id == other.id)
    }

    /// How this output overlaps `input` ("is", "lies inside"), if it does.
    fn overlaps(&self, input: &Path) -> Result<Option<&'static str>> {
        // A file or folder as itself; a glob as the files the run will read (the data
        // set's own expansion, so the two cannot disagree).
        let places: Vec<PathBuf> = if input.exists() {
            vec![real_place(input)?]
        } else {
            crate::data::DataSet::resolve(input).map_or_else(|_| Vec::new(), |set| set.files)
        };
        for place in places {
            let place = std::fs::canonicalize(&place).unwrap_or(place);
            if place.is_dir() && self.real.starts_with(&place) {
                return Ok(Some("lies inside"));
            }
            let id = file_id(&place);
            if self.real == place || (id.is_some() && id == self.id) {
                return Ok(Some("is"));
            }
        }
        Ok(None)
    }
}

fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// The folder an output will be written into exists, is a folder, and this process may
/// create files in it; and the output itself is not a folder.
fn writable_folder(real: &Path, out: &Destination) -> Result<()> {
    if real.is_dir() {
        return Err(Error::input(format!(
            "{}: {} names a folder; give a file",
            out.path.display(),
            out.option
        )));
    }
    let mut dir = match real.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if out.makes_folder && !dir.exists() && std::fs::symlink_metadata(dir).is_err() {
        dir = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
    }
    folder_is_writable(dir).map_err(|why| {
        Error::input(format!(
            "{}: {why}; {} is checked before the run so that no work is lost: create the folder or choose another {}",
            out.path.display(),
            out.option,
            out.option
        ))
    })
}

/// Whether files can be made in `dir`: it exists, is a folder, and is writable by this
/// process (a read-only file system too); else why not, naming it.
pub fn folder_is_writable(dir: &Path) -> std::result::Result<(), String> {
    use std::os::unix::ffi::OsStrExt;
    match std::fs::metadata(dir) {
        Err(_) => return Err(format!("the folder {} does not exist", dir.display())),
        Ok(m) if !m.is_dir() => return Err(format!("{} is not a folder", dir.display())),
        Ok(_) => {}
    }
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return Err(format!("{} is not a path the system takes", dir.display()));
    };
    // SAFETY: `c` is a valid NUL-terminated path; access only reads it.
    let ok = unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } == 0;
    if ok {
        Ok(())
    } else {
        Err(format!(
            "the folder {} is not writable ({})",
            dir.display(),
            io::Error::last_os_error()
        ))
    }
}

/// A device, FIFO or socket (`/dev/stdout`, a named pipe): written as a stream, in the
/// text format a command gives standard output.
pub fn is_stream(path: &Path) -> bool {
    resolve(path).is_ok_and(|p| std::fs::metadata(p).is_ok_and(|m| !m.is_file() && !m.is_dir()))
}

/// Whether standard output was closed when the process started (`wavebench … -o - >&-`).
/// Rust's runtime reopens a closed descriptor 1 on `/dev/null` for reading and writing
/// before `main`, so every write would vanish and the run end "successfully" with nothing
/// written. A shell's `> /dev/null` opens it write-only, so the two can be told apart.
pub fn stdout_is_closed() -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: F_GETFD and F_GETFL only read the descriptor's flags; fstat only fills `st`.
    unsafe {
        if libc::fcntl(1, libc::F_GETFD) == -1 {
            return true;
        }
        let read_write = libc::fcntl(1, libc::F_GETFL) & libc::O_ACCMODE == libc::O_RDWR;
        let mut st: libc::stat = std::mem::zeroed();
        let is_char = libc::fstat(1, &mut st) == 0 && st.st_mode & libc::S_IFMT == libc::S_IFCHR;
        read_write
            && is_char
            && std::fs::metadata("/dev/null").is_ok_and(|null| null.rdev() == st.st_rdev)
    }
}

/// Write what `fill` produces to `path` (see the module's rules).
pub fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    let mut out = Output::create(path)?;
    out.write(fill)?;
    out.finish()
}

/// An output being written by the module's rules, a piece at a time (a run that streams
/// its records writes each chunk as it is computed): nothing appears at `path` until
/// [`Output::finish`]; dropped unfinished, the temporary file is removed.
pub struct Output {
    path: PathBuf,
    to: To,
    /// The reader of standard output has gone (`| head`): what it wanted it has, so
    /// further writes are dropped and the run may stop early, as Unix tools do.
    reader_gone: bool,
    /// Where writes go once the output has failed or been discarded.
    sink: io::Sink,
}

// One per output file: the variants' sizes cost nothing.
#[allow(clippy::large_enum_variant)]
enum To {
    Stdout(BufWriter<io::StdoutLock<'static>>),
    /// A device, FIFO or socket: cannot be replaced (and must not be), so streamed to.
    Stream(BufWriter<std::fs::File>),
    Replace {
        w: BufWriter<std::fs::File>,
        tmp: PathBuf,
        target: PathBuf,
        /// A file being replaced keeps its permissions and owner (a private 0600 output
        /// stays private).
        replaced: Option<std::fs::Metadata>,
    },
    Done,
}

impl Output {
    pub fn create(path: &Path) -> Result<Self> {
        let output = |to| Output {
            path: path.to_path_buf(),
            to,
            reader_gone: false,
            sink: io::sink(),
        };
        if path.as_os_str() == "-" {
            if stdout_is_closed() {
                return Err(closed_stdout());
            }
            return Ok(output(To::Stdout(BufWriter::new(io::stdout().lock()))));
        }
        let target = resolve(path)?;
        let special = std::fs::metadata(&target).is_ok_and(|m| !m.is_file() && !m.is_dir());
        if special {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(&target)
                .map_err(|e| Error::io(path, "write", e))?;
            return Ok(output(To::Stream(BufWriter::new(f))));
        }
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = target
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| Error::input(format!("{}: not a file path", path.display())))?;
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let replaced = std::fs::metadata(&target).ok().filter(|m| m.is_file());
        let file = std::fs::File::create(&tmp).map_err(|e| Error::io(path, "write", e))?;
        track(&tmp, true);
        Ok(output(To::Replace {
            w: BufWriter::new(file),
            tmp,
            target,
            replaced,
        }))
    }

    /// Whether the reader of standard output has gone: nothing more needs computing.
    pub fn reader_gone(&self) -> bool {
        self.reader_gone
    }

    /// Write what `fill` produces next.
    pub fn write(&mut self, fill: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<()> {
        if self.reader_gone {
            return Ok(());
        }
        let written = match &mut self.to {
            To::Stdout(w) => fill(w),
            To::Stream(w) | To::Replace { w, .. } => fill(w),
            To::Done => Ok(()),
        };
        written.or_else(|e| self.failed(e))
    }

    /// The writer itself, for a format that keeps it between pieces (Parquet's row
    /// groups); an error there ends the run, and the dropped output its temporary file.
    pub fn writer(&mut self) -> &mut dyn Write {
        match &mut self.to {
            To::Stdout(w) => w,
            To::Stream(w) | To::Replace { w, .. } => w,
            To::Done => &mut self.sink,
        }
    }

    /// A failed write as the run's error, naming the output; standard output's reader
    /// having gone is no error.
    pub fn failed(&mut self, e: io::Error) -> Result<()> {
        match &self.to {
            To::Stdout(_) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.reader_gone = true;
                Ok(())
            }
            To::Stdout(_) => Err(Error::input(format!(
                "cannot write to standard output: {e}"
            ))),
            _ => {
                self.discard();
                Err(Error::io(&self.path, "write", e))
            }
        }
    }

    /// Flush, and put a replaced file in place.
    pub fn finish(mut self) -> Result<()> {
        match std::mem::replace(&mut self.to, To::Done) {
            To::Done => Ok(()),
            To::Stdout(mut w) => match w.flush() {
                Ok(()) => Ok(()),
                Err(e) => {
                    self.to = To::Stdout(w);
                    self.failed(e)
                }
            },
            To::Stream(mut w) => w.flush().map_err(|e| Error::io(&self.path, "write", e)),
            To::Replace {
                w,
                tmp,
                target,
                replaced,
            } => {
                let placed = (|| -> io::Result<()> {
                    let file = w.into_inner().map_err(|e| e.into_error())?;
                    if let Some(old) = &replaced {
                        use std::os::unix::fs::MetadataExt;
                        file.set_permissions(old.permissions())?;
                        // Only root may give a file away; for anyone else the owner is
                        // already theirs.
                        let _ = std::os::unix::fs::fchown(&file, Some(old.uid()), Some(old.gid()));
                    }
                    file.sync_all()?;
                    std::fs::rename(&tmp, &target)
                })();
                if placed.is_err() {
                    let _ = std::fs::remove_file(&tmp);
                }
                track(&tmp, false);
                placed.map_err(|e| Error::io(&self.path, "write", e))
            }
        }
    }

    /// Remove the temporary file of an output that will not be finished.
    fn discard(&mut self) {
        if let To::Replace { tmp, .. } = std::mem::replace(&mut self.to, To::Done) {
            let _ = std::fs::remove_file(&tmp);
            track(&tmp, false);
        }
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        self.discard();
    }
}
