/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import static dev.slipstream.bench.TestRows.missing;
import static dev.slipstream.bench.TestRows.ok;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * {@code report.html} is well-formed (the JDK's XML parser reads it), embeds every chart the run wrote as
 * PNG data, and names every workload and reader of the run; with a baseline it says which one. Checked on
 * a hand-made run and on the committed runs in {@code docs/bench/}.
 */
class HtmlReportTest {
  private static final Path DOCS = Path.of("..", "docs", "bench");

  @TempDir
  Path tmp;

  @Test
  void aHandMadeRunWithMissingFiguresIsReportedWhole() throws Exception {
    Results r = TestRows.run("s3-like", List.of(
        ok("sequential", "s3a-classic", 3, 25, 24, 26), ok("sequential", "s3a-prefetch", 3, 100, 90, 110),
        ok("sequential", "slipstream", 3, 120, 115, 125),
        ok("listing", "s3a-classic", 3, 0.03, 0.029, 0.031),
        missing("listing", "s3a-prefetch", Result.NOT_APPLICABLE, "one S3A reader runs listings"),
        missing("listing", "slipstream", Result.FAILED, "IOException: <boom> & \"more\"")));
    Path out = tmp.resolve("run");
    ReportFiles.write(r, out);

    Document html = check(r, out);
    String text = html.getDocumentElement().getTextContent();
    assertThat(text).contains("IOException: <boom> & \"more\"", "n/a", "failed", "0.1.0-test", "300.0 MB/s");
    assertThat(text).doesNotContain("Compared with a baseline");
  }

  @Test
  void theCommittedChainRunAgainstTheCommittedDefaultRun() throws Exception {
    ResultsJson.Loaded now = ResultsJson.read(DOCS.resolve("2026-11-23-chain"));
    ResultsJson.Loaded base = ResultsJson.read(DOCS.resolve("2026-11-22-default"));
    Comparison c = Comparison.of(now.results(), base, "docs/bench/2026-11-22-default");
    Path out = tmp.resolve("chain");
    ReportFiles.write(now.results(), c, out);

    Document html = check(now.results(), out);
    String text = html.getDocumentElement().getTextContent();
    assertThat(text).contains("Compared with a baseline", "docs/bench/2026-11-22-default", "vs baseline",
        "real improvements", "Hadoop (S3A) 3.5.0", "not recorded in this results.json");
    assertThat(out.resolve(Charts.CHANGE)).isRegularFile();
    // the re-rendered results.json is the committed one, field for field: re-rendering changes no figure; it
    // only adds the GET latencies that run did not record, as null, the cost its counts give, and the size of
    // many-objects (a workload it did not run) at its default
    Map<?, ?> again = (Map<?, ?>) Json.parse(Files.readString(out.resolve(ReportFiles.JSON)));
    Map<?, ?> committed = (Map<?, ?>) Json.parse(Files.readString(DOCS.resolve("2026-11-23-chain")
        .resolve(ReportFiles.JSON)));
    List<String> added = List.of("get_first_byte_p50_ms", "get_first_byte_p99_ms", "get_total_p50_ms",
        "get_total_p99_ms");
    for (Object row : (List<?>) again.get("rows")) {
      for (String k : added) {
        assertThat(((Map<?, ?>) row).get(k)).isNull();
        ((Map<?, ?>) row).remove(k);
      }
      ((Map<?, ?>) row).remove("dollars_per_tb_used");
    }
    assertThat(((Map<?, ?>) again.get("sizes")).remove("many_objects"))
        .isEqualTo((double) BenchSizes.defaults().manyObjects());
    assertThat(again).isEqualTo(committed);
    assertThat(Files.readString(out.resolve(ReportFiles.MARKDOWN))).contains("**Baseline:**", "| vs baseline |");
  }

  /** Parses report.html in {@code dir} and checks its charts and names; returns the document. */
  private static Document check(Results r, Path dir) throws Exception {
    byte[] bytes = Files.readAllBytes(dir.resolve(ReportFiles.HTML));
    assertThat(new String(bytes, StandardCharsets.UTF_8)).startsWith("<!DOCTYPE html>");
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", false);
    f.setExpandEntityReferences(false);
    Document doc = f.newDocumentBuilder().parse(new ByteArrayInputStream(bytes));

    List<String> pngs = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".png")).forEach(pngs::add);
    }
    assertThat(pngs).contains(Charts.SPEEDUP, Charts.CPU, Charts.LINK);
    NodeList imgs = doc.getElementsByTagName("img");
    List<String> embedded = new ArrayList<>();
    for (int i = 0; i < imgs.getLength(); i++) {
      Element img = (Element) imgs.item(i);
      String src = img.getAttribute("src");
      assertThat(src).as("every image is inside the file").startsWith("data:image/png;base64,");
      byte[] png = Base64.getDecoder().decode(src.substring(src.indexOf(',') + 1));
      assertThat(png).startsWith(0x89, 'P', 'N', 'G');
      assertThat(png).isEqualTo(Files.readAllBytes(dir.resolve(img.getAttribute("data-chart"))));
      assertThat(img.getAttribute("alt")).isNotBlank();
      embedded.add(img.getAttribute("data-chart"));
    }
    assertThat(embedded).containsExactlyInAnyOrderElementsOf(pngs);

    List<String> headings = new ArrayList<>();
    NodeList h2 = doc.getElementsByTagName("h2");
    for (int i = 0; i < h2.getLength(); i++) {
      headings.add(h2.item(i).getTextContent());
    }
    assertThat(headings).containsAll(r.workloads().keySet());
    for (String w : r.workloads().keySet()) {
      assertThat(pngs).contains("mbps-" + w + ".png");
      Element section = doc.getElementById(HtmlReport.id(w));
      if (section == null) { // without a DTD, id is not an ID attribute: look it up by hand
        section = byId(doc, HtmlReport.id(w));
      }
      assertThat(section).as("section of %s", w).isNotNull();
      String text = section.getTextContent();
      for (String reader : r.readers().keySet()) {
        if (r.row(w, reader) != null) {
          assertThat(text).as("%s names %s", w, reader).contains(reader);
        }
      }
    }
    String text = doc.getDocumentElement().getTextContent();
    assertThat(text).contains("Run conditions", "Measured link capacity", r.profile(), "Cores", "JVM", "Versions");
    return doc;
  }

  private static Element byId(Document doc, String id) {
    NodeList all = doc.getElementsByTagName("section");
    for (int i = 0; i < all.getLength(); i++) {
      Element e = (Element) all.item(i);
      if (id.equals(e.getAttribute("id"))) {
        return e;
      }
    }
    return null;
  }
}
