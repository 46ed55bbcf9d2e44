/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Holds the documentation to {@link ConfigKey}: the configuration table of docs/configuration.md lists exactly
 * its keys, in its order, with its defaults and descriptions (the table is {@link ConfigTest#markdownTable()},
 * rendered; on a failure, paste the table the message prints), and every {@code fs.slipstream.*} key the README
 * and docs/*.md name exists. No other file has a configuration table: the README and the other docs point to
 * that one.
 */
class ConfigDocsTest {
  private static final Path README = Path.of("..", "README.md");
  private static final Path DOCS = Path.of("..", "docs");
  static final Path CONFIGURATION = DOCS.resolve("configuration.md");
  private static final String HEADER = "| key (Hadoop: `fs.slipstream.` + key) | default | meaning |";

  /** The configuration table: its header, the line under it and its rows, up to the first line that is not a row. */
  private static List<String> configurationTable() throws IOException {
    List<String> lines = Files.readAllLines(CONFIGURATION);
    List<Integer> headers = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).equals(HEADER)) {
        headers.add(i);
      }
    }
    assertThat(headers).as("docs/configuration.md holds one configuration table, headed %s", HEADER).hasSize(1);
    List<String> table = new ArrayList<>();
    for (int i = headers.get(0); i < lines.size() && lines.get(i).startsWith("|"); i++) {
      table.add(lines.get(i));
    }
    return table;
  }

  /** Key to default cell, in the table's order. */
  private static Map<String, String> rows(List<String> table) {
    Map<String, String> rows = new LinkedHashMap<>();
    for (String row : table.subList(2, table.size())) {
      String[] cells = row.split("\\|", -1);
      assertThat(cells.length).as("a row of key, default and meaning: %s", row).isGreaterThanOrEqualTo(5);
      rows.put(cells[1].trim().replace("`", ""), cells[2].trim());
    }
    return rows;
  }

  @Test
  void tableListsExactlyTheKeysInTheirOrder() throws IOException {
    List<String> keys = ConfigKey.all().stream().map(ConfigKey::key).collect(Collectors.toList());
    assertThat(List.copyOf(rows(configurationTable()).keySet()))
        .as("the keys of docs/configuration.md's table against ConfigKey's")
        .containsExactlyElementsOf(keys);
  }

  @Test
  void tableStatesEachDefaultAsConfigKeyDoes() throws IOException {
    Map<String, String> rows = rows(configurationTable());
    for (ConfigKey k : ConfigKey.values()) {
      String expected = k.defaultValue().map(v -> "`" + v + "`")
          .orElse(k == ConfigKey.MEMORY_MAX ? "¼ of max heap" : "—");
      assertThat(rows.get(k.key())).as("docs/configuration.md's default of %s", k.key()).isEqualTo(expected);
    }
  }

  @Test
  void tableIsConfigKeyRendered() throws IOException {
    String table = ConfigTest.markdownTable();
    assertThat(String.join("\n", configurationTable()) + "\n")
        .as("docs/configuration.md's table is out of date; replace it with:%n%s", table)
        .isEqualTo(table);
  }

  @Test
  void everyPrefixedKeyTheDocsNameExists() throws IOException {
    Pattern prefixed = Pattern.compile(Pattern.quote(SlipstreamConfig.HADOOP_PREFIX) + "([a-z][a-z.]*[a-z])");
    List<Path> files = new ArrayList<>(List.of(README));
    // docs/bench/ holds the reports of past runs as they were written: records, not documentation to keep.
    try (Stream<Path> docs = Files.list(DOCS)) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
    }
    assertThat(files).as("README.md and docs/*.md").hasSizeGreaterThan(1);
    List<String> unknown = new ArrayList<>();
    for (Path file : files) {
      Matcher m = prefixed.matcher(Files.readString(file));
      while (m.find()) {
        if (ConfigKey.byName(m.group(1)).isEmpty()) {
          unknown.add(file + ": " + m.group());
        }
      }
    }
    assertThat(unknown).as("fs.slipstream.* keys named in the documentation that ConfigKey does not know").isEmpty();
  }
}
