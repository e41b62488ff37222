package org.mpfl.compiler.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.InputStream;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import javax.xml.validation.Validator;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.mpfl.compiler.TestDocuments;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * The XSD of mpfl-grammar and the compiler's {@link ElementCatalog} describe the same language:
 * same elements, same attributes, same required ones; every valid document is schema-valid.
 */
class SchemaConsistencyTest {
    static final String XSD = "/org/mpfl/grammar/mpfl-1.0.xsd";
    static final String XS = XMLConstants.W3C_XML_SCHEMA_NS_URI;

    static Schema schema() throws SAXException {
        URL xsd = SchemaConsistencyTest.class.getResource(XSD);
        assertNotNull(xsd, "the XSD is on the class path (mpfl-grammar)");
        SchemaFactory factory = SchemaFactory.newInstance(XS);
        factory.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
        factory.setProperty(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
        return factory.newSchema(xsd);
    }

    @TestFactory
    Stream<DynamicTest> everyValidDocumentIsSchemaValid() throws Exception {
        Schema schema = schema();
        return TestDocuments.valid().stream().map((Path document) -> DynamicTest.dynamicTest(document.toString(), () -> {
            Validator validator = schema.newValidator();
            validator.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            validator.validate(new StreamSource(document.toFile()));
        }));
    }

    @Test
    void schemaRefusesWhatTheCompilerRefuses() throws Exception {
        Validator validator = schema().newValidator();
        String bad = "<workflow xmlns='urn:mpfl:1.0' name='w'><process name='p'><send too='1' data='x'/></process></workflow>";
        assertThrows(SAXException.class, () -> validator.validate(new StreamSource(new java.io.StringReader(bad))));
    }

    @Test
    void schemaAndCatalogDeclareTheSameElementsAndAttributes() throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        org.w3c.dom.Document xsd;
        try (InputStream in = SchemaConsistencyTest.class.getResourceAsStream(XSD)) {
            xsd = factory.newDocumentBuilder().parse(in);
        }
        Set<String> schemaElements = new TreeSet<>();
        for (Node n = xsd.getDocumentElement().getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getLocalName().equals("element")) {
                String name = e.getAttribute("name");
                schemaElements.add(name);
                ElementCatalog.Rule rule = ElementCatalog.rule(name);
                assertNotNull(rule, "schema element <" + name + "> is unknown to the compiler");
                List<String> required = new ArrayList<>();
                List<String> optional = new ArrayList<>();
                NodeList attributes = e.getElementsByTagNameNS(XS, "attribute");
                for (int i = 0; i < attributes.getLength(); i++) {
                    Element a = (Element) attributes.item(i);
                    (a.getAttribute("use").equals("required") ? required : optional).add(a.getAttribute("name"));
                }
                assertEquals(new TreeSet<>(rule.required()), new TreeSet<>(required), "required attributes of <" + name + ">");
                assertEquals(new TreeSet<>(rule.optional()), new TreeSet<>(optional), "optional attributes of <" + name + ">");
            }
        }
        assertEquals(new TreeSet<>(ElementCatalog.elementNames()), schemaElements);
    }

}
