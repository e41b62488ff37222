package org.mpfl.engine.deploy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.ls.DOMImplementationLS;
import org.w3c.dom.ls.LSException;
import org.w3c.dom.ls.LSOutput;
import org.xml.sax.SAXException;

/**
 * Gives a service archive ({@code .aar}) another service name: the host deploys an archive under the
 * name in its {@code META-INF/services.xml}, so an archive is deployed under a qualified name
 * ({@link ServiceNames}) by rewriting that one attribute. Everything else of the archive is copied
 * as it is, entry times included, so the same archive and name always give the same bytes (the
 * engine and the hosts skip deploying an archive they already have, by its bytes). The descriptor
 * is parsed with DTDs and external entities off.
 */
final class ArchiveDescriptor {
    static final String DESCRIPTOR = "META-INF/services.xml";
    /** Largest archive entry read into memory (the descriptor; other entries are streamed). */
    private static final int MAX_DESCRIPTOR_BYTES = 1 << 20;

    private ArchiveDescriptor() {
    }

    /**
     * The archive with its one service named {@code name}; the archive itself when it already is.
     *
     * @throws IOException if it is no zip, has no descriptor, or holds other than exactly one service
     */
    static byte[] renamed(byte[] archive, String name) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(archive.length + 256);
        boolean found = false;
        boolean changed = false;
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(archive));
             ZipOutputStream zip = new ZipOutputStream(out)) {
            for (ZipEntry e; (e = in.getNextEntry()) != null;) {
                ZipEntry copy = new ZipEntry(e.getName());
                copy.setTime(e.getTime());
                if (e.getComment() != null) {
                    copy.setComment(e.getComment());
                }
                zip.putNextEntry(copy);
                if (e.getName().equals(DESCRIPTOR)) {
                    found = true;
                    byte[] xml = in.readNBytes(MAX_DESCRIPTOR_BYTES + 1);
                    if (xml.length > MAX_DESCRIPTOR_BYTES) {
                        throw new IOException(DESCRIPTOR + " is larger than " + MAX_DESCRIPTOR_BYTES + " bytes");
                    }
                    byte[] renamed = rename(xml, name);
                    changed = renamed != xml;
                    zip.write(renamed);
                } else {
                    in.transferTo(zip);
                }
                zip.closeEntry();
            }
        } catch (java.util.zip.ZipException e) {
            throw new IOException("not a service archive (zip): " + e.getMessage(), e);
        }
        if (!found) {
            throw new IOException("not a service archive: no " + DESCRIPTOR);
        }
        return changed ? out.toByteArray() : archive;
    }

    /** The descriptor with its one service named {@code name}; {@code xml} itself when it already is. */
    private static byte[] rename(byte[] xml, String name) throws IOException {
        Document doc;
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setXIncludeAware(false);
            f.setExpandEntityReferences(false);
            DocumentBuilder b = f.newDocumentBuilder();
            b.setErrorHandler(null);
            doc = b.parse(new ByteArrayInputStream(xml));
        } catch (ParserConfigurationException | SAXException e) {
            throw new IOException(DESCRIPTOR + " is not well-formed XML: " + e.getMessage(), e);
        }
        Element root = doc.getDocumentElement();
        List<Element> services = new ArrayList<>();
        if (root.getLocalName().equals("service")) {
            services.add(root);
        } else if (root.getLocalName().equals("serviceGroup")) {
            for (Node n = root.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n instanceof Element el && el.getLocalName().equals("service")) {
                    services.add(el);
                }
            }
        }
        if (services.size() != 1) {
            throw new IOException(DESCRIPTOR + " describes " + services.size() + " services; an archive deployed for a "
                    + "workflow must describe exactly one");
        }
        Element service = services.get(0);
        if (name.equals(service.getAttribute("name"))) {
            return xml;
        }
        service.setAttribute("name", name);
        // the DOM's own serializer: the identity Transformer this used before (XSLTC) cost about 3 % of the
        // README's first run's CPU to set up, for one small document
        DOMImplementationLS ls = (DOMImplementationLS) doc.getImplementation().getFeature("LS", "3.0");
        if (ls == null) {
            throw new IOException("cannot write " + DESCRIPTOR + ": the XML parser's DOM has no serializer (DOM LS 3.0)");
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(xml.length + 64);
        LSOutput output = ls.createLSOutput();
        output.setEncoding("UTF-8");
        output.setByteStream(bytes);
        try {
            ls.createLSSerializer().write(doc, output);
        } catch (LSException e) {
            throw new IOException("cannot write " + DESCRIPTOR + ": " + e.getMessage(), e);
        }
        return bytes.toByteArray();
    }
}
