//! `report.html`: the report's [`Document`] as one self-contained page (inline CSS, no
//! network resources), followed by the cells' plots.
//!
//! Wide tables (12 columns for 3 libraries x 4 modes) scroll sideways inside their own box
//! while their first column, the function or the cell, stays in view, so that the page is
//! never wider than a laptop's window and no column is out of reach. The matrix puts each
//! argument under its error to keep columns narrow.

use crate::doc::{Document, Entry, Section, Table};
use std::fmt::Write;

/// A finished cell's plot: its path relative to the report directory, whether the file is
/// there, and what it shows.
pub struct Plot {
    pub path: String,
    pub present: bool,
    pub caption: String,
}

const STYLE: &str = "body{font-family:sans-serif;margin:1em 1.5em;color:#111}\
    .scroll{overflow-x:auto;max-width:100%;margin:.5em 0}\
    table{border-collapse:separate;border-spacing:0;font-size:13px}\
    th,td{border:solid #bbb;border-width:0 1px 1px 0;padding:2px 6px;text-align:right;\
    white-space:nowrap;background:#fff}\
    tr:first-child>*{border-top-width:1px}\
    th{background:#eee;white-space:normal;vertical-align:bottom}\
    tr>:first-child{position:sticky;left:0;z-index:1;text-align:left;border-left-width:1px;\
    background:#f4f4f4}\
    td small{display:block;color:#555}\
    code{font-size:90%}.note{font-size:90%}\
    img{max-width:100%;height:auto}";

/// Records on `<body>`, once the page has loaded, how many images failed to load, how wide
/// the page is and how wide its widest table is, so that a headless browser's DOM dump can be
/// checked without a JavaScript test harness (crates/tmd/tests/report_page.rs).
const SELF_CHECK: &str = "addEventListener('load',function(){var n=0,w=0,im=document.images,\
    boxes=document.querySelectorAll('.scroll');\
    for(var i=0;i<im.length;i++){if(!im[i].complete||im[i].naturalWidth===0)n++;}\
    for(var j=0;j<boxes.length;j++){w=Math.max(w,boxes[j].scrollWidth);}\
    var b=document.body;b.setAttribute('data-images',im.length);\
    b.setAttribute('data-broken-images',n);b.setAttribute('data-widest-table',w);\
    b.setAttribute('data-scroll-width',document.documentElement.scrollWidth);});";

/// The page: title, paragraphs, each section with its table and notes, then the plots
/// (a missing plot is named, not shown as a broken image).
pub fn page(doc: &Document, plots: &[Plot]) -> String {
    let mut page = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>{0}</title>\n<style>{STYLE}</style>\n<script>{SELF_CHECK}</script>\n\
         </head><body>\n<h1>{0}</h1>\n",
        escape(&doc.title)
    );
    for p in &doc.paragraphs {
        let _ = writeln!(page, "<p>{}</p>", inline(p));
    }
    for section in &doc.sections {
        write_section(&mut page, section);
    }
    page.push_str("<h2>Plots</h2>\n");
    for plot in plots {
        let caption = escape(&plot.caption);
        let path = escape(&plot.path);
        if plot.present {
            let _ = writeln!(
                page,
                "<figure><img src=\"{path}\" alt=\"{caption}\" width=\"900\" height=\"480\">\
                 <figcaption>{caption}</figcaption></figure>"
            );
        } else {
            let _ = writeln!(
                page,
                "<p>{caption}: no plot ({path} is missing and the cell's checkpoint cannot \
                 draw it again).</p>"
            );
        }
    }
    page.push_str("</body></html>\n");
    page
}

fn write_section(page: &mut String, section: &Section) {
    let _ = writeln!(page, "<h2>{}</h2>", escape(&section.title));
    for p in &section.paragraphs {
        let _ = writeln!(page, "<p>{}</p>", inline(p));
    }
    write_table(page, &section.table);
    for note in &section.notes {
        let _ = writeln!(page, "<p class=\"note\">{}</p>", inline(note));
    }
}

fn write_table(page: &mut String, table: &Table) {
    page.push_str("<div class=\"scroll\"><table>\n<tr>");
    for h in &table.header {
        let _ = write!(page, "<th>{}</th>", escape(h));
    }
    page.push_str("</tr>\n");
    for row in &table.rows {
        page.push_str("<tr>");
        for entry in row {
            let _ = write!(page, "<td>{}</td>", entry_html(entry));
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</table></div>\n");
}

/// An entry's text, its detail on a line below it (still `text (detail)` as text, as the
/// Markdown page has it), the whole a link where it has one.
fn entry_html(entry: &Entry) -> String {
    let mut html = escape(&entry.text);
    if let Some(detail) = &entry.detail {
        let _ = write!(html, " <small>({})</small>", escape(detail));
    }
    match &entry.link {
        Some(link) => format!("<a href=\"{}\">{html}</a>", escape(link)),
        None => html,
    }
}

/// Markdown inline text as HTML: code spans between backticks become `<code>`.
fn inline(text: &str) -> String {
    text.split('`')
        .enumerate()
        .map(|(i, piece)| match i % 2 {
            1 => format!("<code>{}</code>", escape(piece)),
            _ => escape(piece),
        })
        .collect()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_become_code_elements_and_text_is_escaped() {
        assert_eq!(
            inline("`*`: a <b> & `x`"),
            "<code>*</code>: a &lt;b&gt; &amp; <code>x</code>"
        );
    }

    #[test]
    fn an_entry_keeps_its_detail_in_parentheses() {
        let entry = Entry {
            text: "0.502".into(),
            detail: Some("0x1p+0".into()),
            link: Some("cells/a.svg".into()),
        };
        assert_eq!(
            entry_html(&entry),
            "<a href=\"cells/a.svg\">0.502 <small>(0x1p+0)</small></a>"
        );
    }
}
