# SPDX-License-Identifier: AGPL-3.0-or-later
"""Generate ``field-manual.pdf``, the bundled sample PDF of Chunk Explorer.

The manual is for a fictional water-quality testing kit. It exercises what PDF extraction and
chunking find hard: headings in larger and bold fonts, a bulleted list, ruled tables with header
rows, one page set in two columns, a running header and a page-numbered footer on every page, and
paragraphs that continue across page breaks.

Run from anywhere:

    .venv/bin/python sample_docs/make_field_manual.py [OUTPUT]

The output is deterministic: fixed metadata, no timestamps and no random file identifier, so two
runs give byte-identical files.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pymupdf

OUTPUT = Path(__file__).with_name("field-manual.pdf")

PAGE = pymupdf.paper_rect("a4")  # 595 x 842 points
MARGIN_X = 62
TOP = 74
BOTTOM = PAGE.height - 70
BODY = pymupdf.Rect(MARGIN_X, TOP, PAGE.width - MARGIN_X, BOTTOM)
GUTTER = 22
LEFT_COLUMN = pymupdf.Rect(BODY.x0, BODY.y0, (BODY.x0 + BODY.x1 - GUTTER) / 2, BODY.y1)
RIGHT_COLUMN = pymupdf.Rect((BODY.x0 + BODY.x1 + GUTTER) / 2, BODY.y0, BODY.x1, BODY.y1)

TITLE = "WQ-4 Field Water Testing Kit"
RUNNING_HEADER = "WQ-4 Field Water Testing Kit: Field Manual, Revision C"
FIXED_DATE = "D:20240301120000Z"
METADATA = {
    "title": f"{TITLE}: Field Manual",
    "author": "Chunk Explorer sample documents",
    "subject": "Sample PDF for Chunk Explorer: a field manual for a fictional water testing kit",
    "keywords": "sample, chunking, water quality, field manual",
    "creator": "sample_docs/make_field_manual.py",
    "producer": "PyMuPDF",
    "creationDate": FIXED_DATE,
    "modDate": FIXED_DATE,
    "trapped": "",
}

CSS = """
body { margin: 0; font-family: serif; font-size: 10.5pt; line-height: 1.35; color: #1a1a1a; }
h1 { font-family: sans-serif; font-size: 22pt; font-weight: bold; color: #0b3c5d;
     margin: 0 0 4pt 0; }
h2 { font-family: sans-serif; font-size: 14pt; font-weight: bold; color: #0b3c5d;
     margin: 14pt 0 5pt 0; }
h3 { font-family: sans-serif; font-size: 11.5pt; font-weight: bold; color: #222;
     margin: 10pt 0 3pt 0; }
p { margin: 0 0 6pt 0; }
p.subtitle { font-family: sans-serif; font-size: 12pt; color: #555; margin-bottom: 2pt; }
p.edition { font-family: sans-serif; font-size: 9pt; color: #555; margin-bottom: 14pt; }
p.rule { border-left: 2pt solid #0b3c5d; padding-left: 6pt; }
ul, ol { margin: 0 0 6pt 0; padding-left: 16pt; }
li { margin-bottom: 2pt; }
table { border-collapse: collapse; margin: 4pt 0 8pt 0; width: 100%; }
th, td { border: 0.75pt solid #555; padding: 2.5pt 4pt; font-size: 9.5pt; text-align: left; }
th { font-family: sans-serif; font-weight: bold; border-bottom: 1.5pt solid #0b3c5d; }
h2.first { margin-top: 0; }
p.intro { font-style: italic; }
table.sheet th, table.sheet td { font-size: 8.5pt; padding: 2pt 3pt; }
.col h3 { font-size: 10pt; margin: 0 0 2pt 0; }
.col p { font-size: 9.5pt; margin-bottom: 7pt; }
"""

# Part 1: single column, flows over several pages.
PART_1 = """
<h1>WQ-4 Field Water Testing Kit</h1>
<p class="subtitle">Field Manual</p>
<p class="edition">Revision C, March 2024. For kits with serial numbers WQ4-2200 and later.</p>

<h2>1. About this manual</h2>
<p>This manual explains how to collect, store and test surface-water and drinking-water samples
with the WQ-4 kit. It is written for volunteers, site technicians and teachers who test water
outdoors, often far from a laboratory and often in poor weather. Read sections 2 to 4 before your
first field day; the remaining sections can be used as a reference once you know the kit.</p>
<p>The WQ-4 measures six parameters: pH, temperature, electrical conductivity, turbidity, nitrate
and free chlorine. The first four are read from the handheld meter; nitrate and free chlorine are
read by comparing a reagent colour with the colour card in the lid. Results recorded with the kit
are screening results. They are good enough to spot a problem and decide where to look next, but
they do not replace an accredited laboratory analysis when a result has legal or health
consequences.</p>
<p>Rules in this manual are printed with a bar in the left margin. Many rules have an exception,
and the exception always follows the rule directly, in the same paragraph. Read both: a rule read
without its exception is the most common reason for throwing away a sample that could have been
kept, or for reporting a result that should have been discarded. When a rule and its exception
seem to conflict with local instructions from your coordinator, follow the local instructions and
note the difference on the record sheet.</p>

<h2>2. Safety</h2>
<p>Water testing is usually safe, but sampling sites are not. Before you leave, tell someone where
you are going and when you expect to be back. At the site, observe the following rules:</p>
<ul>
<li>Never sample from a bridge, weir or steep bank without a second person present.</li>
<li>Wear the nitrile gloves supplied with the kit whenever you handle reagents or untreated
water, and wash your hands before eating.</li>
<li>Do not enter water that is deeper than your knees or flowing faster than walking pace; use the
telescopic sampling pole instead.</li>
<li>Keep reagent tablets away from children and animals, and take all used tablets, foil and
test tubes home with you.</li>
<li>If the water smells of fuel or sewage, or has an unusual colour or foam, do not touch it.
Photograph the site, note the time and report it to the local environment agency.</li>
</ul>
<p class="rule">Gloves must be worn for every nitrate and chlorine test. This does not apply when
the tablets are handled in their sealed foil strips, which may be torn open with bare hands.</p>

<h2>3. Kit contents</h2>
<p>Check the contents against the table below before every field day. Reagents have a limited
shelf life, and a kit with expired reagents gives results that look plausible but are wrong. Part
numbers are printed on every refill pack, and refills can be ordered from the coordinator, who
keeps a small stock for each group. Order before the last item of a kind is used: a field day
with no spare sample bottles usually ends with samples in borrowed drinks bottles, and those
results cannot be used, because the bottles are neither clean nor sterile. Items marked n/a in
the last column do not expire, but they should still be inspected for cracks and leaks.</p>
<table>
<tr><th>Item</th><th>Qty</th><th>Part no.</th><th>Shelf life</th></tr>
<tr><td>Handheld meter (pH, temperature, conductivity, turbidity)</td><td>1</td><td>WQ4-M1</td>
<td>n/a</td></tr>
<tr><td>pH buffer solutions, pH 4.01 and 7.00, 50 mL</td><td>2</td><td>WQ4-B47</td>
<td>12 months unopened</td></tr>
<tr><td>Conductivity standard, 1413 \u00b5S/cm, 50 mL</td><td>1</td><td>WQ4-C14</td>
<td>12 months unopened</td></tr>
<tr><td>Nitrate reagent tablets, strip of 50</td><td>1</td><td>WQ4-N50</td>
<td>24 months</td></tr>
<tr><td>Free chlorine (DPD 1) tablets, strip of 50</td><td>1</td><td>WQ4-D50</td>
<td>6 months after opening</td></tr>
<tr><td>Sample bottles, 250 mL, sterile</td><td>10</td><td>WQ4-S25</td>
<td>until seal is broken</td></tr>
<tr><td>Glass test tubes with caps, 10 mL</td><td>4</td><td>WQ4-T10</td><td>n/a</td></tr>
<tr><td>Telescopic sampling pole, 1.2 to 3 m</td><td>1</td><td>WQ4-P30</td><td>n/a</td></tr>
<tr><td>Insulated cool box with two ice packs</td><td>1</td><td>WQ4-K02</td><td>n/a</td></tr>
</table>

<h2>4. Collecting samples</h2>
<h3>4.1 Choosing a site</h3>
<p>Choose a sampling point where the water is well mixed and representative of the stream or
tank you want to describe. In a stream, that usually means a straight run away from the bank,
upstream of any bridge, outfall or cattle crossing. In a lake, sample from the end of a jetty or
from a boat rather than from the edge, where leaves, pollen and sediment collect. When you monitor
the same site repeatedly, mark the exact point on the site sheet with a photograph and a grid
reference, because results taken two metres apart can differ more than results taken two months
apart, especially below a tributary that has not yet mixed into the main flow.</p>

<h3>4.2 Filling the bottle</h3>
<p>Remove the cap only when you are ready to sample, and do not touch the inside of the cap or
the neck of the bottle. Hold the bottle near its base, plunge it neck-down to about 20 cm below
the surface, then turn it upright to fill it while moving it slowly against the current so that
water touched by your hand flows away from the opening. Leave a small air space below the cap, so
that the sample can be shaken before testing, and write the site code, date and time on the label
straight away. A bottle without a label is discarded at the end of the day, however carefully it
was filled, because a result that cannot be tied to a site and a time is worse than no result at
all: it will be entered somewhere, copied into a report and compared with next year's results by
someone who has no way of knowing that it was a guess. If you fill several bottles at one site,
fill them one after the other from the same point, label each one before filling the next, and
note on the site sheet which bottle is which, so that a duplicate can be traced to its pair.</p>

<h3>4.3 Holding times</h3>
<p>Some parameters change within minutes of sampling, others remain stable for days. Temperature
and free chlorine must be measured on site. The other parameters can be measured later, provided
the sample is kept cool and dark and is tested within its holding time.</p>
<p class="rule">Samples must be tested within 24 hours. This limit does not apply to frozen
samples.</p>
<p>Frozen samples may be kept for up to 28 days, but only for the nitrate test; freezing damages
the turbidity reading and shifts pH. Thaw frozen samples in the fridge, never in warm water, and
shake them well before testing.</p>
<table>
<tr><th>Parameter</th><th>Where to test</th><th>Holding time</th><th>Storage</th></tr>
<tr><td>Temperature</td><td>on site</td><td>none: read at once</td><td>n/a</td></tr>
<tr><td>Free chlorine</td><td>on site</td><td>15 minutes</td><td>keep out of sunlight</td></tr>
<tr><td>pH</td><td>on site or base</td><td>6 hours</td><td>cool box, 4 \u00b0C</td></tr>
<tr><td>Conductivity</td><td>on site or base</td><td>24 hours</td><td>cool box, 4 \u00b0C</td></tr>
<tr><td>Turbidity</td><td>on site or base</td><td>24 hours</td><td>cool box, dark</td></tr>
<tr><td>Nitrate</td><td>base</td><td>24 hours (28 days frozen)</td><td>cool box or freezer</td></tr>
</table>

<h2>5. Running the tests</h2>
<p>Let the meter and the sample reach the same temperature before reading pH or conductivity; the
meter compensates for temperature, but not for a probe that is still warming up. Rinse the probe
with sample water, not with tap water, before every reading.</p>

<h3>5.1 pH</h3>
<p>Switch the meter to pH mode, immerse the probe to the line marked on the sleeve, and stir
gently for ten seconds. Wait until the reading has been stable for five seconds and the display
shows the <b>STABLE</b> mark, then record the value to one decimal place. Natural waters usually
read between 6.5 and 8.5. A reading outside that range is worth repeating with a fresh sample
before it is reported, because a dirty probe or an exhausted buffer is a more common cause than a
polluted stream.</p>

<h3>5.2 Conductivity and temperature</h3>
<p>Conductivity is read in the same way as pH, in conductivity mode. The meter shows temperature
on the second line of the display in every mode. Record both values. Conductivity is reported in
\u00b5S/cm at 25 \u00b0C; the meter converts automatically, so do not correct the value by hand.</p>

<h3>5.3 Turbidity</h3>
<p>Fill the turbidity cell to the line, wipe the outside with the lint-free cloth, and insert it
with the arrow facing the front of the meter. Take three readings, turning the cell a quarter turn
between them, and record the lowest. Bubbles and fingerprints raise turbidity readings; they never
lower them, which is why the lowest of three readings is the most reliable one.</p>

<h3>5.4 Nitrate</h3>
<ol>
<li>Fill a test tube to the 10 mL mark with sample water.</li>
<li>Add one nitrate tablet, cap the tube and shake until the tablet has dissolved.</li>
<li>Wait exactly five minutes. Use the timer on the meter.</li>
<li>Hold the tube against the white side of the colour card in daylight, not in direct sun, and
read the closest colour.</li>
</ol>
<p>Report nitrate as mg/L NO<sub>3</sub>-N. Values above 10 mg/L in drinking water must be
confirmed by a laboratory within 48 hours.</p>

<h3>5.5 Free chlorine</h3>
<p>The free chlorine test is used only for treated water: tap water, swimming pools and storage
tanks. Add one DPD 1 tablet to 10 mL of sample, crush it with the stirring rod, and read the colour
within one minute. A pink colour that fades quickly means a very high chlorine level has bleached
the indicator; dilute the sample one part in ten with distilled water and repeat.</p>

<h3>5.6 Before leaving the site</h3>
<p>Take two minutes to check your work before you pack up: repeating a test now is easier than
coming back next week. Walk through the record sheet from left to right: every sample has a site
code, a date and a time, every on-site parameter has a value or a reason why it is missing, and
every bottle in the cool box has a matching line on the sheet. Then check the values: a pH of 4.2
in a chalk stream, a conductivity ten times the last value or a nitrate colour darker than the
darkest field on the card are possible, but rare enough that a second test is worth the few
minutes it takes.</p>
<p>Finally, pack the kit in the order shown on the inside of the lid. Used tablets and foil go
into the waste bag, used test tubes are capped and placed in the rack, and the meter is switched
off with the probe cap filled and pushed on. Check that the ice packs are still frozen; if they
are not, the samples must be tested on the same day, whatever their holding time.</p>

<h2>6. Calibration and maintenance</h2>
<p>The meter must be calibrated at the start of every field day, using both pH buffers and the
conductivity standard. Calibration takes about five minutes and is stored in the meter until the
next calibration. The meter may be used without a new calibration on the second day of a two-day
trip, provided the check reading in pH 7.00 buffer is within 0.1 units of the buffer value.</p>
<ol>
<li>Rinse the probe with distilled water and blot it dry; do not wipe the glass bulb.</li>
<li>Press and hold <b>CAL</b> until the display shows <b>CAL 7</b>. Immerse the probe in pH 7.00
buffer and wait for the beep.</li>
<li>Rinse again, immerse in pH 4.01 buffer when the display shows <b>CAL 4</b>, and wait for the
beep.</li>
<li>Switch to conductivity mode, immerse in the 1413 \u00b5S/cm standard and press <b>CAL</b>.</li>
<li>Record the calibration on the record sheet, including the lot numbers of the buffers.</li>
</ol>
<p>After each field day, rinse the probe, fill the probe cap with storage solution and push it
on firmly. Never store the pH probe dry or in distilled water; both shorten its life. Once a
month, soak the probe for fifteen minutes in the cleaning solution, then recalibrate. A probe that
still drifts after cleaning, or that needs more than a minute to settle in buffer, has reached the
end of its life and should be replaced; probes normally last one to two years.</p>

<h2>7. Storage and transport</h2>
<p>Store the kit indoors between 5 and 30 \u00b0C, away from direct sunlight. Reagent tablets
must be used before the date printed on the foil. This does not apply to opened strips of DPD 1
chlorine tablets, which must be discarded six months after opening whatever the printed date
says, because they absorb moisture once the strip is cut. Write the opening date on the strip
with a permanent marker.</p>
<p>Samples travel in the cool box with both ice packs, bottles upright and caps closed. Put the
cool box in the passenger area of the vehicle, not in the boot, where temperatures can exceed
40 \u00b0C in summer.</p>

<h2>8. Quality control</h2>
<p>Field results are only useful if you can show that they are repeatable. On every field day,
take at least one duplicate sample and one blank. A duplicate is a second bottle filled at the
same point and time as the first; a blank is a bottle filled with distilled water at base and
carried through the whole day unopened, then tested like any other sample.</p>
<p class="rule">Duplicates must agree within 0.2 pH units, and within 10 percent for each of the
other parameters. This tolerance does not apply to turbidity readings below 5 NTU, where the
two readings must simply agree within 1 NTU.</p>
<p>When a duplicate pair disagrees by more than the tolerance, report both values, mark them as
"duplicate failed", and look for the cause before the next field day. The usual causes, in order
of frequency, are a bottle that was not shaken before the test, a probe that was not rinsed
between samples, a reagent tablet that was past its date, and a colour read in poor light. A
blank that gives a nitrate reading above zero points to contaminated test tubes or distilled
water rather than to a problem with the meter, and it means that every nitrate result from that
day is suspect: report those results with the note "blank positive" and wash the test tubes in
fresh distilled water three times before the next use. Keep a running list of failed duplicates
and positive blanks with the date, the site and the cause you found, and send it with the record
sheets. Over a season, that list tells the coordinator more about the quality of the data than
any single result, and it is the first thing a laboratory will ask for when your results are
compared with theirs.</p>
<p>Once a year, ideally at the start of the season, send one sample from a regular site to the
partner laboratory and test a second bottle from the same sample with your kit. The comparison
is the best check there is on the whole chain: sampling, storage, reagents, meter and reader.</p>

<h2>9. Recording and reporting results</h2>
<p>Record every result on the record sheet on the day of the test, in ink, including results that
look wrong. Never overwrite a value: strike it through once, write the new value beside it, and
add your initials. The example below shows one row per sample and one column per parameter.</p>
<table class="sheet">
<tr><th>Site</th><th>Date</th><th>Time</th><th>Temp (\u00b0C)</th><th>pH</th>
<th>EC (\u00b5S/cm)</th><th>Turbidity (NTU)</th><th>Nitrate (mg/L)</th><th>Notes</th></tr>
<tr><td>RB-01</td><td>4 Mar</td><td>09:40</td><td>7.8</td><td>7.4</td><td>412</td><td>3.1</td>
<td>1.5</td><td>clear, low flow</td></tr>
<tr><td>RB-02</td><td>4 Mar</td><td>10:25</td><td>8.1</td><td>7.2</td><td>455</td><td>5.6</td>
<td>2.0</td><td>below culvert</td></tr>
<tr><td>RB-03</td><td>4 Mar</td><td>11:10</td><td>8.4</td><td>6.9</td><td>1020</td><td>18.0</td>
<td>6.5</td><td>repeated as RB-03b</td></tr>
<tr><td>RB-03b</td><td>4 Mar</td><td>11:20</td><td>8.4</td><td>6.9</td><td>1015</td><td>17.2</td>
<td>6.5</td><td>duplicate of RB-03</td></tr>
</table>
<p>Send the record sheets to the coordinator within seven days of the field day. Results that
exceed the alert values below must be reported on the same day by phone, with the site code and
the time of sampling: pH below 6.0 or above 9.0, conductivity above 1500 \u00b5S/cm, turbidity
above 50 NTU, or nitrate above 10 mg/L.</p>

<h2>Appendix A. Glossary</h2>
<p><b>Holding time.</b> The longest time a sample may be stored between collection and testing
before the result is no longer trusted. For example, a pH sample taken at 09:00 with a holding
time of six hours must be tested by 15:00.</p>
<p><b>Screening result.</b> A result from a field kit, good enough to decide whether a laboratory
test is needed but not a substitute for one.</p>
<p><b>Duplicate.</b> A second sample taken at the same point and time, used to check that a
surprising result is real and not a handling error.</p>
<p><b>NTU.</b> Nephelometric turbidity unit, the unit in which the meter reports turbidity.</p>
"""

# Part 2: the two-column quick-reference page: a full-width heading, then two balanced columns.
PART_2_HEAD = """
<h2 class="first">Appendix B. Quick reference and troubleshooting</h2>
<p class="intro">Use this page at the site. Each entry names a symptom, its most likely cause and
the fix. If the fix does not work, stop testing and describe the problem on the record sheet
instead of reporting doubtful values.</p>
"""

PART_2 = """
<div class="col">
<h3>Display is blank</h3>
<p>The batteries are flat or inserted the wrong way round. The meter does not switch itself on
when the battery cover is open.</p>
<h3>Meter shows ERR 1</h3>
<p>The pH probe is dry or not connected. Check the connector, then soak the probe tip in the
storage solution for at least ten minutes before trying again.</p>
<h3>Meter shows ERR 2</h3>
<p>Calibration failed because a buffer is contaminated or expired. Pour fresh buffer into a clean
cup; never dip the probe into the buffer bottle itself.</p>
<h3>Meter shows ERR 3</h3>
<p>The conductivity standard read more than 10 percent away from 1413 \u00b5S/cm. Rinse the cell
with distilled water, use fresh standard and calibrate again.</p>
<h3>pH reading drifts</h3>
<p>The probe has not reached the sample temperature, or the junction is clogged. Wait two more
minutes. If the drift continues, clean the probe as described in section 6.</p>
<h3>Conductivity reads zero</h3>
<p>The probe is not immersed deeply enough. Both steel rings must be under water.</p>
<h3>Turbidity reads higher each time</h3>
<p>Suspended sediment is settling onto the bottom of the cell, or bubbles are forming as the
sample warms up. Invert the cell gently and read again at once.</p>
<h3>Tablet will not dissolve</h3>
<p>The sample is too cold. Warm the capped tube in your hand for a minute, then crush the tablet
with the stirring rod. Start the five-minute timer only when the tablet has dissolved.</p>
<h3>Nitrate colour is hard to match</h3>
<p>Read the colour in open shade. Sunglasses, tinted windows and car interiors shift the colour
toward the higher values. If the colour falls between two fields, record the lower value and
write "between" in the notes column.</p>
<h3>Colour card looks pale</h3>
<p>The card has faded in sunlight and now reads low. Replace it every two years, or sooner if the
kit is often left in a vehicle.</p>
<h3>Chlorine colour fades</h3>
<p>The sample contains more than 5 mg/L of chlorine. Dilute one part in ten and repeat the test,
then multiply the result by ten.</p>
<h3>Battery symbol flashes</h3>
<p>About one hour of use remains. Replace both AA cells at the same time. Calibration data are
kept while the batteries are out.</p>
<h3>Sample was frozen by accident</h3>
<p>Use it for nitrate only and note "frozen" on the record sheet. Do not use it for pH,
conductivity or turbidity.</p>
<h3>Label is missing or unreadable</h3>
<p>Discard the sample. A result that cannot be tied to a site and a time must not be entered on
the record sheet.</p>
<h3>Cool box is warm on return</h3>
<p>If the ice packs have thawed and the samples feel warm, test pH and conductivity at once and
mark all results from that trip as "warm transport".</p>
<h3>Reading differs from last visit</h3>
<p>Before reporting a large change, repeat the test on a second bottle. Look for a cause on site:
recent rain, a new outfall, livestock, works upstream or algae.</p>
</div>
"""


def flow(writer: pymupdf.DocumentWriter, story: pymupdf.Story) -> int:
    """Place a single-column story page after page; return the number of pages used."""
    pages = 0
    more = 1
    while more:
        device = writer.begin_page(PAGE)
        more, _ = story.place(BODY)
        story.draw(device)
        writer.end_page()
        pages += 1
    return pages


def _fits_in_columns(story: pymupdf.Story, top: float, height: float) -> bool:
    story.reset()
    more = 1
    for column in (LEFT_COLUMN, RIGHT_COLUMN):
        more, _ = story.place(pymupdf.Rect(column.x0, top, column.x1, top + height))
        story.draw(None)  # advances the story without drawing anything
        if not more:
            break
    return not more


def two_column_page(
    writer: pymupdf.DocumentWriter, head: pymupdf.Story, story: pymupdf.Story
) -> None:
    """One page: ``head`` across the full width, then ``story`` in two balanced columns."""
    device = writer.begin_page(PAGE)
    more, filled = head.place(BODY)
    if more:
        raise RuntimeError("the two-column page heading does not fit")
    head.draw(device)
    top = pymupdf.Rect(filled).y1 + 8
    # Balance the columns: find the smallest height (to half a point) that holds the story.
    low, high = 0.0, BODY.y1 - top
    if not _fits_in_columns(story, top, high):
        raise RuntimeError("the two-column text does not fit on one page")
    while high - low > 0.5:
        middle = (low + high) / 2
        low, high = (low, middle) if _fits_in_columns(story, top, middle) else (middle, high)
    story.reset()
    for column in (LEFT_COLUMN, RIGHT_COLUMN):
        more, _ = story.place(pymupdf.Rect(column.x0, top, column.x1, top + high))
        story.draw(device)
        if not more:
            break
    writer.end_page()


def add_running_header_and_footer(doc: pymupdf.Document) -> None:
    total = doc.page_count
    for number, page in enumerate(doc, start=1):
        page.insert_text(
            (MARGIN_X, 44), RUNNING_HEADER, fontname="helv", fontsize=8, color=(0.33, 0.33, 0.33)
        )
        page.draw_line(
            (MARGIN_X, 50), (PAGE.width - MARGIN_X, 50), color=(0.6, 0.6, 0.6), width=0.5
        )
        footer = f"Page {number} of {total}"
        width = pymupdf.get_text_length(footer, fontname="helv", fontsize=8)
        page.insert_text(
            ((PAGE.width - width) / 2, PAGE.height - 40),
            footer,
            fontname="helv",
            fontsize=8,
            color=(0.33, 0.33, 0.33),
        )


def build() -> bytes:
    buffer = io.BytesIO()
    writer = pymupdf.DocumentWriter(buffer)
    flow(writer, pymupdf.Story(PART_1, user_css=CSS))
    two_column_page(
        writer, pymupdf.Story(PART_2_HEAD, user_css=CSS), pymupdf.Story(PART_2, user_css=CSS)
    )
    writer.close()

    doc = pymupdf.open("pdf", buffer.getvalue())
    add_running_header_and_footer(doc)
    doc.subset_fonts()
    doc.set_metadata(METADATA)
    # no_new_id: MuPDF would otherwise write a fresh random /ID on every save.
    return doc.tobytes(garbage=4, deflate=True, no_new_id=True)


def main(argv: list[str]) -> int:
    output = Path(argv[1]) if len(argv) > 1 else OUTPUT
    output.write_bytes(build())
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
