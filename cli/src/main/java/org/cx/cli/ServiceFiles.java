package org.cx.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/** The files that make a producer a service of its machine: a systemd unit and a launchd property list. */
final class ServiceFiles {
    private ServiceFiles() {
    }

    /**
     * A systemd unit that runs {@code command}, restarts it if it ends, gives it time to finish its tasks when
     * stopped, and runs it at the lowest priority (the owner's programs first).
     */
    static String systemd(List<String> command, boolean system) {
        return """
                [Unit]
                Description=CX producer: runs tasks of a CX network on this machine's spare cycles
                After=network-online.target
                Wants=network-online.target

                [Service]
                Type=simple
                ExecStart=%s
                Restart=always
                RestartSec=10
                TimeoutStopSec=60
                KillMode=mixed
                Nice=19
                IOSchedulingClass=idle

                [Install]
                WantedBy=%s
                """.formatted(command.stream().map(ServiceFiles::systemdWord).collect(Collectors.joining(" ")),
                system ? "multi-user.target" : "default.target");
    }

    /** A word of a systemd command line: quoted if it has a space, quote, backslash or percent sign. */
    static String systemdWord(String word) {
        String escaped = word.replace("%", "%%");
        if (escaped.chars().noneMatch(c -> c == ' ' || c == '"' || c == '\\' || c == '\'')) {
            return escaped;
        }
        return "\"" + escaped.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** A launchd property list that runs {@code command} at load, keeps it alive, in the background. */
    static String launchd(List<String> command, Path logDir) {
        String args = command.stream().map(a -> "        <string>" + xml(a) + "</string>")
                .collect(Collectors.joining("\n"));
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0">
                <dict>
                    <key>Label</key>
                    <string>%s</string>
                    <key>ProgramArguments</key>
                    <array>
                %s
                    </array>
                    <key>RunAtLoad</key>
                    <true/>
                    <key>KeepAlive</key>
                    <true/>
                    <key>ProcessType</key>
                    <string>Background</string>
                    <key>Nice</key>
                    <integer>19</integer>
                    <key>ExitTimeOut</key>
                    <integer>60</integer>
                    <key>StandardOutPath</key>
                    <string>%s</string>
                    <key>StandardErrorPath</key>
                    <string>%s</string>
                </dict>
                </plist>
                """.formatted(ProducerInstallCommand.LAUNCHD_LABEL, args,
                xml(logDir.resolve("producer.log").toString()), xml(logDir.resolve("producer.log").toString()));
    }

    private static String xml(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
