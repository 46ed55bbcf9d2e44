/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The floors of slipstream-core, held on the bytecode as built (docs/architecture.md, "Floors"). From the
 * top:
 * <pre>
 *   API         Slipstream, Lister, S3Clients, S3KeyOrder; dev.slipstream.metrics (it binds a client)
 *   read        the open stream
 *   parquet     the Parquet format: its footer parsed, the footers a client keeps, what a stream does with them
 *   orc         the ORC format: its tail parsed, the layouts a client learns, what a stream fetches ahead
 *   ahead       what a stream holds outside its blocks, and fetches ahead of its reads
 *   learn       what a client learns across its streams: footers, predicted columns, depth, orders
 *   source      where bytes come from: the tiers, then S3
 *   fetch       getting bytes from the store   |  cache   the disk cache      |  list   listings
 *   store       the object store, the retry loop
 *   block       buffers under one budget
 *   values      every other public type of dev.slipstream and dev.slipstream.spi: configuration,
 *               statistics, locations, options, exceptions, and what the floors implement
 *               (SlipstreamInputStream, Listing, ReadingOrder, SharedBlockStore)
 *   util        ETag, AccessGate, daemon threads
 * </pre>
 * A floor uses the floors below it, never one above: fetch and cache know nothing of each other, nor
 * list of the read path; what a client learns knows nothing of how bytes are read. The public package is split: its entry points sit above read (they assemble a
 * client out of the floors), its values at the bottom (every floor takes a configuration, counts into
 * statistics, names a location), so a public value may use util and other values only.
 *
 * <p>And no cycles: between the floors, between the public types, and between the classes of one package
 * (a type with its nested types is one): a reader who follows a call down never comes back to a class
 * it left. Only a sealed type and the classes it permits may use each other, and only those named in
 * {@link #MUTUAL}. The bytecode does not show every use: a constant the compiler inlined, or a method
 * reference handed down and run below, leaves no trace in the class that uses it; so the same rule is also
 * held on the sources ({@link #noCyclesInSources}), where a class that names a sibling of its package in
 * code (comments and strings aside) uses it.
 */
@AnalyzeClasses(packages = "dev.slipstream", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {
  /** The public types that assemble a client out of the floors: the top of the house. */
  private static final Set<String> ENTRY_POINTS =
      Set.of("Slipstream", "SharedResources", "Lister", "S3Clients", "S3KeyOrder");

  private static final String INTERNAL = "dev.slipstream.internal.";

  /** The name of {@code c}'s outermost class: a nested, inner or anonymous class belongs to its file's type. */
  private static String topLevel(JavaClass c) {
    String name = c.getName();
    int dollar = name.indexOf('$');
    return dollar < 0 ? name : name.substring(0, dollar);
  }

  /** The floor of {@code c}, or null for a class outside slipstream-core's packages. */
  static String floorOf(JavaClass c) {
    String pkg = c.getPackageName();
    if (pkg.startsWith(INTERNAL)) {
      String rest = pkg.substring(INTERNAL.length());
      int dot = rest.indexOf('.');
      return dot < 0 ? rest : rest.substring(0, dot);
    }
    if (pkg.equals("dev.slipstream.metrics") || pkg.startsWith("dev.slipstream.metrics.")) {
      return "api";
    }
    if (pkg.equals("dev.slipstream")) {
      String simple = topLevel(c).substring("dev.slipstream.".length());
      return ENTRY_POINTS.contains(simple) ? "api" : "values";
    }
    if (pkg.equals("dev.slipstream.spi") || pkg.startsWith("dev.slipstream.spi.")) {
      return "values";
    }
    return null;
  }

  private static DescribedPredicate<JavaClass> on(String floor) {
    return DescribedPredicate.describe("the " + floor + " floor", c -> floor.equals(floorOf(c)));
  }

  @ArchTest
  static final ArchRule FLOORS = layeredArchitecture()
      .consideringOnlyDependenciesInLayers()
      .layer("API").definedBy(on("api"))
      .layer("read").definedBy(on("read"))
      .layer("parquet").definedBy(on("parquet"))
      .layer("orc").definedBy(on("orc"))
      .layer("ahead").definedBy(on("ahead"))
      .layer("learn").definedBy(on("learn"))
      .layer("source").definedBy(on("source"))
      .layer("fetch").definedBy(on("fetch"))
      .layer("cache").definedBy(on("cache"))
      .layer("list").definedBy(on("list"))
      .layer("store").definedBy(on("store"))
      .layer("block").definedBy(on("block"))
      .layer("values").definedBy(on("values"))
      .layer("util").definedBy(on("util"))
      .whereLayer("API").mayNotBeAccessedByAnyLayer()
      .whereLayer("read").mayOnlyBeAccessedByLayers("API")
      .whereLayer("parquet").mayOnlyBeAccessedByLayers("API", "read")
      .whereLayer("orc").mayOnlyBeAccessedByLayers("API", "read", "parquet")
      .whereLayer("ahead").mayOnlyBeAccessedByLayers("API", "read", "parquet", "orc")
      .whereLayer("learn").mayOnlyBeAccessedByLayers("API", "read", "parquet", "orc")
      .whereLayer("source").mayOnlyBeAccessedByLayers("API", "read", "parquet", "orc", "ahead")
      .whereLayer("fetch").mayOnlyBeAccessedByLayers("API", "read", "parquet", "orc", "ahead", "source")
      .whereLayer("cache").mayOnlyBeAccessedByLayers("API", "read", "source")
      .whereLayer("list").mayOnlyBeAccessedByLayers("API")
      .whereLayer("store").mayOnlyBeAccessedByLayers("API", "read", "source", "fetch", "list")
      .whereLayer("block").mayOnlyBeAccessedByLayers("API", "read", "parquet", "orc", "ahead", "source", "fetch", "cache",
          "list", "store")
      .whereLayer("values").mayOnlyBeAccessedByLayers("API", "read", "parquet", "orc", "learn", "ahead", "source", "fetch",
          "cache", "list", "store", "block")
      .because("a floor of slipstream-core uses the floors below it, never one above (docs/architecture.md)");

  /** The internal packages one slice each, the entry points one, and each public value type its own. */
  private static final SliceAssignment FLOORS_AND_PUBLIC_TYPES = new SliceAssignment() {
    @Override
    public SliceIdentifier getIdentifierOf(JavaClass c) {
      String floor = floorOf(c);
      if (floor == null) {
        return SliceIdentifier.ignore();
      }
      return floor.equals("values") ? SliceIdentifier.of(topLevel(c)) : SliceIdentifier.of(floor);
    }

    @Override
    public String getDescription() {
      return "the floors of slipstream-core, each public value type on its own";
    }
  };

  /**
   * Types that may use each other inside their package, by top-level name: a sealed type and the classes
   * it permits (a permitted class names its sealed parent, which names it back).
   */
  static final Set<Set<String>> MUTUAL = Set.of(Set.of("PooledBytes", "Block", "Span"));

  /**
   * Each top-level type of slipstream-core with its nested types, save that the members of a set in
   * {@link #MUTUAL} are one slice together.
   */
  private static final SliceAssignment TYPES = new SliceAssignment() {
    @Override
    public SliceIdentifier getIdentifierOf(JavaClass c) {
      if (floorOf(c) == null) {
        return SliceIdentifier.ignore();
      }
      String type = topLevel(c);
      for (Set<String> mutual : MUTUAL) {
        if (mutual.contains(type)) {
          return SliceIdentifier.of(String.join("+", new java.util.TreeSet<>(mutual)));
        }
      }
      return SliceIdentifier.of(type);
    }

    @Override
    public String getDescription() {
      return "the types of slipstream-core, each with its nested types";
    }
  };

  @ArchTest
  static final ArchRule NO_CYCLES_BETWEEN_TYPES = slices().assignedFrom(TYPES)
      .should().beFreeOfCycles()
      .because("a cycle between the classes of a package sends a reader who follows a call back to a class"
          + " it left (docs/architecture.md, \"Floors\")");

  @ArchTest
  static final ArchRule NO_CYCLES = slices().assignedFrom(FLOORS_AND_PUBLIC_TYPES)
      .should().beFreeOfCycles()
      .because("a cycle ties floors, or public types, that should stand one on the other");

  /** The sources of slipstream-core's main classes, from the module's directory (where the tests run). */
  private static final Path SOURCES = Path.of("src/main/java/dev/slipstream");

  /** Comments, text blocks, strings and characters: what names a class without using it. */
  private static final Pattern NOT_CODE = Pattern.compile(
      "//[^\\n]*|/\\*.*?\\*/|\"\"\".*?\"\"\"|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\\\n])+'",
      Pattern.DOTALL);
  private static final Pattern WORD = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");
  private static final Pattern DECLARED = Pattern.compile("\\b(?:class|interface|enum|record)\\s+([A-Za-z_$][A-Za-z0-9_$]*)");

  /**
   * No cycle between the classes of one package as their sources name each other: what the bytecode rule
   * cannot see (an inlined constant, a lambda or method reference handed to a class that runs it) is
   * caught here. A file uses a sibling when its code, comments and strings aside, names it, unless it
   * declares a nested type of that name itself.
   */
  @ArchTest
  static void noCyclesInSources(JavaClasses ignored) throws IOException {
    assertTrue(Files.isDirectory(SOURCES), "sources not found at " + SOURCES.toAbsolutePath());
    List<String> cycles = new ArrayList<>();
    try (Stream<Path> dirs = Files.walk(SOURCES)) {
      for (Path dir : (Iterable<Path>) dirs.filter(Files::isDirectory)::iterator) {
        cycles.addAll(cyclesIn(dir));
      }
    }
    assertTrue(cycles.isEmpty(), "classes of one package that name each other in their sources (a reader who"
        + " follows a call comes back to a class it left): " + cycles);
  }

  /** The cycles between the top-level classes of the package in {@code dir}, each as its classes' names. */
  static List<String> cyclesIn(Path dir) throws IOException {
    Map<String, String> code = new TreeMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
        String name = f.getFileName().toString().replace(".java", "");
        if (!name.equals("package-info")) {
          code.put(name, NOT_CODE.matcher(Files.readString(f)).replaceAll(" "));
        }
      }
    }
    Map<String, Set<String>> uses = new HashMap<>();
    code.forEach((name, text) -> {
      Set<String> declared = new HashSet<>();
      Matcher d = DECLARED.matcher(text);
      while (d.find()) {
        declared.add(d.group(1));
      }
      declared.remove(name);
      Set<String> used = new TreeSet<>();
      Matcher w = WORD.matcher(text);
      while (w.find()) {
        String word = w.group();
        if (!word.equals(name) && code.containsKey(word) && !declared.contains(word) && !mutual(name, word)) {
          used.add(word);
        }
      }
      uses.put(name, used);
    });
    List<String> cycles = new ArrayList<>();
    for (Set<String> c : stronglyConnected(uses)) {
      if (c.size() > 1) {
        cycles.add(dir.getFileName() + ": " + c);
      }
    }
    return cycles;
  }

  private static boolean mutual(String a, String b) {
    return MUTUAL.stream().anyMatch(m -> m.contains(a) && m.contains(b));
  }

  /** The strongly connected sets of {@code graph} (Tarjan's algorithm). */
  private static List<Set<String>> stronglyConnected(Map<String, Set<String>> graph) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new HashSet<>();
    List<Set<String>> found = new ArrayList<>();
    for (String v : new TreeSet<>(graph.keySet())) {
      if (!index.containsKey(v)) {
        connect(v, graph, index, low, stack, onStack, found);
      }
    }
    return found;
  }

  private static void connect(String v, Map<String, Set<String>> graph, Map<String, Integer> index,
      Map<String, Integer> low, Deque<String> stack, Set<String> onStack, List<Set<String>> found) {
    index.put(v, index.size());
    low.put(v, index.get(v));
    stack.push(v);
    onStack.add(v);
    for (String w : graph.getOrDefault(v, Set.of())) {
      if (!index.containsKey(w)) {
        connect(w, graph, index, low, stack, onStack, found);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      Set<String> c = new TreeSet<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        c.add(w);
      } while (!w.equals(v));
      found.add(c);
    }
  }
}
