/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import java.io.Reader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

/**
 * Iceberg's REST catalog server, run in a child JVM by {@link RestCatalog}: the servlet and adapter of
 * iceberg-core's test jar ({@code RESTCatalogServlet} over {@code RESTCatalogAdapter}) over a JDBC catalog on
 * SQLite, as iceberg-open-api's {@code RESTCatalogServer} assembles them, but on a connector of 127.0.0.1
 * (that one listens on every interface). Not a test: it runs on unshaded Iceberg, which must not meet the
 * Spark runtime jar the tests run on.
 *
 * <p>Arguments: a properties file of the backend catalog's properties, and the file to write the port to
 * once it listens. It stops when its parent ends it.
 */
public final class RestCatalogMain {
  private RestCatalogMain() {}

  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    try (Reader in = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) {
      p.load(in);
    }
    Map<String, String> properties = new HashMap<>();
    p.stringPropertyNames().forEach(k -> properties.put(k, p.getProperty(k)));
    Catalog catalog = CatalogUtil.buildIcebergCatalog("rest_backend", properties, null);

    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    context.addServlet(new ServletHolder(new RESTCatalogServlet(new RESTCatalogAdapter(catalog))), "/*");
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost(InetAddress.getLoopbackAddress().getHostAddress());
    connector.setPort(0);
    server.addConnector(connector);
    server.setHandler(context);
    server.start();

    Path port = Path.of(args[1]);
    Path partial = Path.of(args[1] + ".partial");
    Files.writeString(partial, Integer.toString(connector.getLocalPort()), StandardCharsets.US_ASCII);
    Files.move(partial, port, StandardCopyOption.ATOMIC_MOVE);
    server.join();
  }
}
