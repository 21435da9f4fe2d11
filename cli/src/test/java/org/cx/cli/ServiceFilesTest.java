package org.cx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

class ServiceFilesTest {
    @Test
    void theSystemdUnitQuotesWhatNeedsIt() {
        String unit = ServiceFiles.systemd(List.of("/opt/my cx/bin/cx", "producer", "--name", "50%"), false);
        assertTrue(unit.contains("ExecStart=\"/opt/my cx/bin/cx\" producer --name 50%%"), unit);
        assertTrue(unit.contains("WantedBy=default.target"), unit);
        assertTrue(ServiceFiles.systemd(List.of("cx"), true).contains("WantedBy=multi-user.target"));
    }

    /** Checked as far as Linux can: a well-formed property list that names the command, escaped. */
    @Test
    void theLaunchdAgentIsAWellFormedPropertyList() throws Exception {
        String plist = ServiceFiles.launchd(List.of("/opt/cx/bin/cx", "producer", "--lookup", "a&b:4160"),
                Path.of("/tmp/state"));
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        Document doc = factory.newDocumentBuilder().parse(new ByteArrayInputStream(
                plist.getBytes(StandardCharsets.UTF_8)));
        assertEquals("plist", doc.getDocumentElement().getTagName());
        assertEquals(4, doc.getElementsByTagName("array").item(0).getChildNodes().getLength() / 2);
        assertTrue(plist.contains("<string>a&amp;b:4160</string>"), plist);
    }
}
