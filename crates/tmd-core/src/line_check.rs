//! The check every line of a resume journal or checkpoint carries: a CRC-32 (the IEEE
//! polynomial of zlib, gzip and PNG), written as 8 lowercase hexadecimal digits.
//!
//! A kill leaves at most a torn last line, which the readers already recognise; a check is
//! what catches the other damage (an edited digit, a flipped bit, a line lost or repeated in a
//! copy), which would otherwise parse as a valid record and change what a resumed run lists.
//!
//! Two layouts:
//!
//! - [`chained`]: a text line ends with ` <check>`, the CRC-32 of the previous line's check
//!   (its 8 digits; nothing before the first line) followed by the line's text up to that
//!   space. Chaining makes a lost, repeated or reordered line fail the check of the line after
//!   it, which matters where each line is one case of a list.
//! - [`seal_json`] / [`unseal_json`]: a JSON object line ends with `,"crc32":"<check>"}`, the
//!   CRC-32 of the object without that member. The line stays one valid JSON object for other
//!   readers. These records are independent (a lost one is only redone), so no chaining.

/// The text of a check: 8 lowercase hexadecimal digits.
pub fn hex(check: u32) -> String {
    format!("{check:08x}")
}

/// The check of `text` after the line whose check is `previous` (`None` for the first line).
pub fn chained(previous: Option<u32>, text: &str) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    if let Some(previous) = previous {
        hasher.update(hex(previous).as_bytes());
    }
    hasher.update(text.as_bytes());
    hasher.finalize()
}

/// Reads a check as written by [`hex`]; `None` for anything else (another spelling is damage).
pub fn parse_hex(word: &str) -> Option<u32> {
    if word.len() != 8 || !word.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    u32::from_str_radix(word, 16).ok()
}

/// Splits a [`chained`] line (newline removed) into its text and its check, if the check
/// matches; `Err` says what is wrong.
pub fn split_chained(previous: Option<u32>, line: &str) -> Result<(&str, u32), &'static str> {
    let (text, word) = line.rsplit_once(' ').ok_or("no check")?;
    let check = parse_hex(word).ok_or("no check")?;
    if chained(previous, text) != check {
        return Err("check mismatch");
    }
    Ok((text, check))
}

/// The member a sealed JSON line ends with, before its 8 digits and `"}`.
const JSON_MEMBER: &str = ",\"crc32\":\"";

/// `object` (one JSON object on one line, as serde_json writes it) with its check as a last
/// member.
pub fn seal_json(object: &str) -> String {
    let body = object
        .strip_suffix('}')
        .expect("a JSON object ends with a brace");
    let check = crc32fast::hash(object.as_bytes());
    format!("{body}{JSON_MEMBER}{}\"}}", hex(check))
}

/// The object a [`seal_json`] line (newline removed) was made from, if its check matches;
/// `Err` says what is wrong.
pub fn unseal_json(line: &str) -> Result<String, &'static str> {
    let rest = line.strip_suffix("\"}").ok_or("no check")?;
    let (body, word) = rest.rsplit_once(JSON_MEMBER).ok_or("no check")?;
    let check = parse_hex(word).ok_or("no check")?;
    let object = format!("{body}}}");
    if crc32fast::hash(object.as_bytes()) != check {
        return Err("check mismatch");
    }
    Ok(object)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_is_the_zlib_one() {
        // The standard check value of CRC-32/ISO-HDLC.
        assert_eq!(chained(None, "123456789"), 0xcbf43926);
        assert_eq!(hex(0xcbf43926), "cbf43926");
    }

    #[test]
    fn chained_lines_fail_when_edited_or_moved() {
        let first = chained(None, "head");
        let second = chained(Some(first), "c 12");
        let line = format!("c 12 {}", hex(second));
        assert_eq!(split_chained(Some(first), &line), Ok(("c 12", second)));
        assert!(split_chained(Some(first), &line.replace("12", "13")).is_err());
        // The same line after another one (a line lost before it) fails too.
        assert!(split_chained(Some(second), &line).is_err());
        assert!(split_chained(Some(first), "c 12").is_err());
        assert!(split_chained(Some(first), &line.to_uppercase()).is_err());
    }

    #[test]
    fn sealed_json_stays_json_and_fails_when_edited() {
        let sealed = seal_json(r#"{"index":3,"max":1.5}"#);
        assert!(sealed.starts_with(r#"{"index":3,"max":1.5,"crc32":""#));
        assert_eq!(unseal_json(&sealed).unwrap(), r#"{"index":3,"max":1.5}"#);
        assert!(unseal_json(&sealed.replace("1.5", "1.6")).is_err());
        assert!(unseal_json(r#"{"index":3,"max":1.5}"#).is_err());
    }
}
