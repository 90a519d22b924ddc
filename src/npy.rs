//! NumPy's `.npy` format (versions 1.0–3.0) and `.npz` archives of them.
//!
//! A `.npy` file is a magic string, a header that is a Python dict literal
//! (`{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }`), then the array's bytes
//! in C order. The format is small enough to write here; the crate that does it (npyz)
//! brings a PEG parser, and for `.npz` a second zip crate with every codec. `.npz` is a zip
//! of `.npy` members (stored by `np.savez`, deflated by `np.savez_compressed`): the `zip`
//! crate, streamed so that it needs no seeking and can go through `export::write_atomic`.

use crate::error::{Error, Result};
use std::io::{self, Read, Write};

/// An array's elements, borrowed for writing.
pub enum Data<'a> {
    F32(&'a [f32]),
    F64(&'a [f64]),
    I64(&'a [i64]),
    /// Unicode text (`<U{n}`, n the longest in characters).
    Text(&'a [String]),
}

impl Data<'_> {
    fn len(&self) -> usize {
        match self {
            Data::F32(v) => v.len(),
            Data::F64(v) => v.len(),
            Data::I64(v) => v.len(),
            Data::Text(v) => v.len(),
        }
    }
    fn text_width(v: &[String]) -> usize {
        v.iter()
            .map(|s| s.chars().count())
            .max()
            .unwrap_or(0)
            .max(1)
    }
    fn descr(&self) -> String {
        match self {
            Data::F32(_) => "<f4".into(),
            Data::F64(_) => "<f8".into(),
            Data::I64(_) => "<i8".into(),
            Data::Text(v) => format!("<U{}", Self::text_width(v)),
        }
    }
    /// Bytes of the array's data.
    fn byte_len(&self) -> u64 {
        let n = self.len() as u64;
        match self {
            Data::F32(_) => 4 * n,
            Data::F64(_) | Data::I64(_) => 8 * n,
            Data::Text(v) => 4 * n * Self::text_width(v) as u64,
        }
    }
}

const MAGIC: &[u8] = b"\x93NUMPY";

fn header(shape: &[usize], descr: &str) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    // Version 1.0 has a 2-byte header length; 2.0 a 4-byte one. Data starts 64-aligned.
    let (version, len_bytes) = if dict.len() + 11 + 10 < 65_535 {
        (1u8, 2)
    } else {
        (2, 4)
    };
    let pre = MAGIC.len() + 2 + len_bytes;
    let total = (pre + dict.len() + 1).div_ceil(64) * 64;
    let hlen = total - pre;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    if len_bytes == 2 {
        out.extend_from_slice(&(hlen as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(hlen as u32).to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    out
}

/// The size of the `.npy` file `write` makes.
pub fn file_len(shape: &[usize], data: &Data) -> u64 {
    header(shape, &data.descr()).len() as u64 + data.byte_len()
}

/// Write one array as a `.npy` file. `shape`'s product must equal the data's length.
pub fn write(w: &mut dyn Write, shape: &[usize], data: &Data) -> io::Result<()> {
    let n: usize = shape.iter().product();
    if n != data.len() {
        return Err(io::Error::other(format!(
            "internal: shape {shape:?} holds {n} values, not {}",
            data.len()
        )));
    }
    w.write_all(&header(shape, &data.descr()))?;
    // Written in blocks: one allocation per block, not per value.
    const BLOCK: usize = 1 << 14;
    let mut buf = Vec::with_capacity(BLOCK * 8);
    macro_rules! numbers {
        ($v:expr) => {
            for chunk in $v.chunks(BLOCK) {
                buf.clear();
                for x in chunk {
                    buf.extend_from_slice(&x.to_le_bytes());
                }
                w.write_all(&buf)?;
            }
        };
    }
    match data {
        Data::F32(v) => numbers!(v),
        Data::F64(v) => numbers!(v),
        Data::I64(v) => numbers!(v),
        Data::Text(v) => {
            let width = Data::text_width(v);
            for s in v.iter() {
                buf.clear();
                let mut k = 0;
                for c in s.chars() {
                    buf.extend_from_slice(&(c as u32).to_le_bytes());
                    k += 1;
                }
                buf.resize(buf.len() + 4 * (width - k), 0);
                w.write_all(&buf)?;
            }
        }
    }
    Ok(())
}

/// An array read back: its shape and elements.
#[derive(Debug, Clone, PartialEq)]
pub struct Array {
    pub shape: Vec<usize>,
    pub data: Owned,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Owned {
    F32(Vec<f32>),
    F64(Vec<f64>),
    I64(Vec<i64>),
    Text(Vec<String>),
}

impl Owned {
    pub fn kind(&self) -> &'static str {
        match self {
            Owned::F32(_) => "float32",
            Owned::F64(_) => "float64",
            Owned::I64(_) => "int64",
            Owned::Text(_) => "text",
        }
    }
}

/// The value after `'key':` in a header dict, up to the next top-level comma.
fn dict_value<'a>(dict: &'a str, key: &str) -> Option<&'a str> {
    let at = dict.find(&format!("'{key}'"))? + key.len() + 2;
    let rest = dict[at..].trim_start().strip_prefix(':')?.trim_start();
    let end = if rest.starts_with('(') {
        rest.find(')')? + 1
    } else {
        rest.find([',', '}'])?
    };
    Some(rest[..end].trim())
}

/// The header's dictionary text and the header's length in bytes, read from `r` (whose
/// file holds `limit` bytes): the magic, the format version and the dictionary.
fn read_header(r: &mut dyn Read, limit: u64) -> Result<(Vec<u8>, u64)> {
    let mut pre = [0u8; 8];
    r.read_exact(&mut pre)
        .map_err(|e| Error::input(format!("not a .npy array: {e}")))?;
    if &pre[..6] != MAGIC {
        return Err(Error::input("not a .npy array (no \\x93NUMPY magic)"));
    }
    let hlen = match pre[6] {
        1 => {
            let mut b = [0u8; 2];
            r.read_exact(&mut b)
                .map_err(|e| Error::input(e.to_string()))?;
            u16::from_le_bytes(b) as usize
        }
        2 | 3 => {
            let mut b = [0u8; 4];
            r.read_exact(&mut b)
                .map_err(|e| Error::input(e.to_string()))?;
            u32::from_le_bytes(b) as usize
        }
        v => {
            return Err(Error::input(format!(
                ".npy format version {v} is not supported"
            )))
        }
    };
    if hlen as u64 > limit {
        return Err(Error::input(format!(
            "the .npy header claims {hlen} bytes; the file holds {limit}"
        )));
    }
    let mut h = vec![0u8; hlen];
    r.read_exact(&mut h)
        .map_err(|e| Error::input(e.to_string()))?;
    let header_len = if pre[6] == 1 { 10 } else { 12 } + hlen as u64;
    Ok((h, header_len))
}

/// An `.npy` header's shape (`(3, 4)`, `(5,)`, `()`) and how many values it holds.
fn parse_shape(shape_text: &str) -> Result<(Vec<usize>, usize)> {
    let shape: Vec<usize> = shape_text
        .trim_matches(['(', ')'])
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.trim_end_matches('L').parse::<usize>())
        .collect::<Result<_, _>>()
        .map_err(|_| {
            Error::input(format!(
                "the .npy shape {shape_text} is not a tuple of sizes"
            ))
        })?;
    let n = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| {
            Error::input(format!(
                "the .npy shape {shape_text} holds more values than memory can address"
            ))
        })?;
    Ok((shape, n))
}

/// Read one `.npy` array of float32/float64/int32/int64 or unicode text, little-endian,
/// C order (what NumPy writes on every common machine), of at most `limit` bytes (what the
/// file or archive member holds). Errors say what the file holds. The header's shape is
/// checked against `limit` and the machine's memory before anything is allocated: a
/// header may claim any size.
pub fn read(r: &mut dyn Read, limit: u64) -> Result<Array> {
    let (h, header_len) = read_header(r, limit)?;
    let limit = limit.saturating_sub(header_len);
    let dict = String::from_utf8_lossy(&h);
    let descr = dict_value(&dict, "descr")
        .ok_or_else(|| Error::input("the .npy header has no 'descr'"))?
        .trim_matches(['\'', '"']);
    if dict_value(&dict, "fortran_order") == Some("True") {
        return Err(Error::input(
            "the array is in Fortran order; save it with np.ascontiguousarray",
        ));
    }
    let shape_text =
        dict_value(&dict, "shape").ok_or_else(|| Error::input("the .npy header has no 'shape'"))?;
    let (shape, n) = parse_shape(shape_text)?;
    let mut bytes = |width: usize| -> Result<Vec<u8>> {
        let need = (n as u128) * (width as u128);
        if need > u128::from(limit) {
            return Err(Error::input(format!(
                "the .npy header claims shape {shape_text} of {descr} ({need} bytes) but the file holds {limit} bytes after its header"
            )));
        }
        if wavebench_core::run_spec::available_memory().is_some_and(|have| need > u128::from(have))
        {
            return Err(Error::input(format!(
                "the .npy array of shape {shape_text} needs {need} bytes, more memory than is available"
            )));
        }
        let mut b = vec![0u8; need as usize];
        r.read_exact(&mut b).map_err(|e| {
            Error::input(format!(
                "the array ends early ({n} values of dtype {descr}): {e}"
            ))
        })?;
        Ok(b)
    };
    macro_rules! numbers {
        ($t:ty, $w:expr) => {
            bytes($w)?
                .chunks_exact($w)
                .map(|c| <$t>::from_le_bytes(c.try_into().unwrap_or_default()))
                .collect::<Vec<$t>>()
        };
    }
    let data = match descr {
        "<f4" => Owned::F32(numbers!(f32, 4)),
        "<f8" => Owned::F64(numbers!(f64, 8)),
        "<i8" => Owned::I64(numbers!(i64, 8)),
        "<i4" => Owned::I64(numbers!(i32, 4).into_iter().map(i64::from).collect()),
        d if d.starts_with("<U") => {
            let width: usize = d[2..]
                .parse()
                .map_err(|_| Error::input(format!("the .npy dtype {d} is not understood")))?;
            let b = bytes(4 * width)?;
            Owned::Text(
                b.chunks_exact(4 * width.max(1))
                    .map(|s| {
                        s.chunks_exact(4)
                            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                            .take_while(|&c| c != 0)
                            .filter_map(char::from_u32)
                            .collect()
                    })
                    .collect(),
            )
        }
        d => {
            return Err(Error::input(format!(
                "the .npy dtype {d} is not supported (float32, float64, int32, int64 or text)"
            )))
        }
    };
    Ok(Array { shape, data })
}

/// Write named arrays as an `.npz` archive (uncompressed, as `np.savez` does).
pub fn write_npz(w: &mut dyn Write, arrays: &[(&str, Vec<usize>, Data)]) -> io::Result<()> {
    use zip::write::SimpleFileOptions;
    let mut zip = zip::ZipWriter::new_stream(w);
    for (name, shape, data) in arrays {
        let options = SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .large_file(file_len(shape, data) >= u32::MAX as u64);
        zip.start_file(format!("{name}.npy"), options)
            .map_err(io::Error::other)?;
        write(&mut zip, shape, data)?;
    }
    zip.finish().map_err(io::Error::other)?;
    Ok(())
}

/// Every array of an `.npz` archive, in the archive's order.
pub fn read_npz(file: std::fs::File) -> Result<Vec<(String, Array)>> {
    let mut zip = zip::ZipArchive::new(io::BufReader::new(file))
        .map_err(|e| Error::input(format!("not an .npz archive: {e}")))?;
    let mut out = Vec::with_capacity(zip.len());
    for i in 0..zip.len() {
        let mut member = zip.by_index(i).map_err(|e| Error::input(e.to_string()))?;
        let name = member
            .name()
            .map_err(|e| Error::input(e.to_string()))?
            .to_string();
        let size = member.size();
        let array = read(&mut member, size).map_err(|e| Error::input(format!("{name}: {e}")))?;
        out.push((name.trim_end_matches(".npy").to_string(), array));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_round_trip_with_aligned_headers() {
        let f = [1.5f64, -2.0, 3.25, 0.0, 1e300, -1e-300];
        let mut buf = Vec::new();
        write(&mut buf, &[2, 3], &Data::F64(&f)).unwrap();
        assert_eq!(buf.len() as u64, file_len(&[2, 3], &Data::F64(&f)));
        let header_len = buf.len() - f.len() * 8;
        assert_eq!(header_len % 64, 0, "data starts 64-byte aligned");
        let back = read(&mut buf.as_slice(), buf.len() as u64).unwrap();
        assert_eq!(back.shape, vec![2, 3]);
        assert_eq!(back.data, Owned::F64(f.to_vec()));

        let t = vec![
            "OT".to_string(),
            "2016-07-01 00:00:00".into(),
            "µs ü".into(),
        ];
        let mut buf = Vec::new();
        write(&mut buf, &[3], &Data::Text(&t)).unwrap();
        let back = read(&mut buf.as_slice(), buf.len() as u64).unwrap();
        assert_eq!((back.shape, back.data), (vec![3], Owned::Text(t)));

        let mut buf = Vec::new();
        write(&mut buf, &[], &Data::I64(&[7])).unwrap();
        let back = read(&mut buf.as_slice(), buf.len() as u64).unwrap();
        assert_eq!((back.shape, back.data), (vec![], Owned::I64(vec![7])));
    }

    #[test]
    fn bad_headers_are_named() {
        assert!(read(&mut &b"PK\x03\x04 not npy"[..], 16)
            .unwrap_err()
            .to_string()
            .contains("magic"));
        let mut buf = Vec::new();
        write(&mut buf, &[2], &Data::F32(&[1.0, 2.0])).unwrap();
        buf.truncate(buf.len() - 2);
        // A member whose declared size is honest: the shape is checked against it.
        let honest = read(&mut buf.as_slice(), buf.len() as u64)
            .unwrap_err()
            .to_string();
        assert!(honest.contains("claims shape (2,)"), "{honest}");
        // A declared size that lies: the read itself finds the end.
        assert!(read(&mut buf.as_slice(), 1 << 20)
            .unwrap_err()
            .to_string()
            .contains("ends early"));
    }

    /// A header may claim any shape: 2^40 float64 (8 TB) over a few bytes is refused
    /// before anything is allocated, and so is a product past 64 bits.
    #[test]
    fn a_shape_larger_than_the_file_is_refused_before_allocating() {
        let mut buf = header(&[1 << 40], "<f8");
        buf.extend_from_slice(&[0u8; 64]);
        let e = read(&mut buf.as_slice(), buf.len() as u64)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("claims shape (1099511627776,)") && e.contains("8796093022208 bytes"),
            "{e}"
        );
        let huge = header(&[1 << 40, 1 << 40], "<f8");
        let e = read(&mut huge.as_slice(), u64::MAX)
            .unwrap_err()
            .to_string();
        assert!(e.contains("more values than memory can address"), "{e}");
    }
}
