//! What `tmd report` says, as one model rendered twice: `report.md` by [`markdown`] and
//! `report.html` by [`crate::html`]. Both pages come from the same sections, tables
//! and notes, so that neither can hold a table or a footnote the other lacks.
//!
//! Text is Markdown inline text: a code span is written between backticks, which the HTML
//! renderer turns into `<code>`.

use std::fmt::Write;

/// A whole page: its title, the paragraphs under it, then its sections.
pub struct Document {
    pub title: String,
    pub paragraphs: Vec<String>,
    pub sections: Vec<Section>,
}

/// A `##` section: paragraphs, one table, and the notes that explain the table's marks.
pub struct Section {
    pub title: String,
    pub paragraphs: Vec<String>,
    pub table: Table,
    pub notes: Vec<String>,
}

/// A table whose first column names its rows (the HTML page keeps it in view when the
/// table scrolls sideways).
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<Entry>>,
}

/// One table entry: its text, an optional detail printed after it in parentheses (the
/// HTML page puts it on a line of its own, to keep columns narrow), and an optional link
/// (relative to the report directory).
pub struct Entry {
    pub text: String,
    pub detail: Option<String>,
    pub link: Option<String>,
}

impl Entry {
    pub fn plain(text: impl Into<String>) -> Entry {
        Entry {
            text: text.into(),
            detail: None,
            link: None,
        }
    }

    /// The entry as one line of text: `text (detail)`.
    pub fn full_text(&self) -> String {
        match &self.detail {
            Some(d) => format!("{} ({d})", self.text),
            None => self.text.clone(),
        }
    }
}

/// The Markdown page.
pub fn markdown(doc: &Document) -> String {
    let mut md = format!("# {}\n\n", doc.title);
    for p in &doc.paragraphs {
        let _ = writeln!(md, "{p}\n");
    }
    let sections: Vec<String> = doc.sections.iter().map(markdown_section).collect();
    md.push_str(&sections.join("\n"));
    md
}

fn markdown_section(section: &Section) -> String {
    let mut md = format!("## {}\n\n", section.title);
    for p in &section.paragraphs {
        let _ = writeln!(md, "{p}\n");
    }
    let table = &section.table;
    let _ = writeln!(md, "| {} |", table.header.join(" | "));
    let _ = writeln!(md, "|{}", " --- |".repeat(table.header.len()));
    for row in &table.rows {
        let texts: Vec<String> = row.iter().map(Entry::full_text).collect();
        let _ = writeln!(md, "| {} |", texts.join(" | "));
    }
    for note in &section.notes {
        let _ = writeln!(md, "\n{note}");
    }
    md
}
