#!/usr/bin/env python3
"""Writes a man page (section 3) for every function udccp.h declares
(and the headers it includes, <udccp/ccid.h>).

The header is the manual (issue 14: `man udccp_connect` must work), so the
pages are made from it, never written twice: each comment block and the
declarations that follow it become one page, written once per function it
declares (udccp_connect.3, ...), with the group's other functions and the
header's section in SEE ALSO.

    usage: gen_man3.py HEADER OUTDIR VERSION
"""
import os
import re
import sys

DECL = re.compile(r'(?:^|[^A-Za-z0-9_])(udccp_[a-z0-9_]+)\s*\(')
# "T (*name)": a function-pointer type or struct member, with its type
FNPTR = re.compile(r'[A-Za-z0-9_]*\s*\(\s*\*\s*[A-Za-z0-9_]+\s*\)')


def roff_text(line):
    """Escapes one line of plain text for roff."""
    line = line.replace('\\', '\\e')
    if line.startswith('.') or line.startswith("'"):
        line = '\\&' + line
    return line.replace('-', '\\-')


def code_only(lines):
    """Each line without its comments (a comment may start on a code line
    and go on over the next lines, as in the header's enums)."""
    out, inc = [], False
    for line in lines:
        code, rest = '', line
        while rest:
            if inc:
                j = rest.find('*/')
                if j < 0:
                    rest = ''
                else:
                    rest, inc = rest[j + 2:], False
            else:
                j = rest.find('/*')
                if j < 0:
                    code, rest = code + rest, ''
                else:
                    code, rest, inc = code + rest[:j], rest[j + 2:], True
        out.append(code)
    return out


def parse(path):
    """Yields (section, comment lines, declaration text, [names])."""
    lines = open(path, encoding='utf-8').read().split('\n')
    code = code_only(lines)
    section = 'overview'
    comment = []
    i = 0
    while i < len(lines):
        raw = lines[i]
        s = raw.strip()
        banner = re.match(r'/\*\s*-{4,}\s*(.*?)\s*\*/$', s)
        if banner:
            section = banner.group(1) or section
            comment = []
            i += 1
            continue
        if s.startswith('/*'):
            block = []
            while True:
                block.append(lines[i])
                if '*/' in lines[i]:
                    break
                i += 1
            i += 1
            comment = block
            continue
        c = code[i].strip()
        if (c and not c.startswith('#') and not c.startswith('typedef')
                and DECL.search(FNPTR.sub('', c))):
            decl = [raw]
            while ';' not in lines[i] and i + 1 < len(lines):
                i += 1
                decl.append(lines[i])
            i += 1
            group = [decl]
            # declarations that follow with no comment between share it
            while i < len(lines) and code[i].strip() and \
                    DECL.search(FNPTR.sub('', code[i])):
                d = [lines[i]]
                while ';' not in lines[i] and i + 1 < len(lines):
                    i += 1
                    d.append(lines[i])
                i += 1
                group.append(d)
            names = []
            for d in group:
                m = DECL.search(FNPTR.sub('', ' '.join(code_only(d))))
                names.append(m.group(1))
            yield section, comment, group, names
            comment = []
            continue
        if s == '':
            pass  # a blank line keeps the comment for what follows
        else:
            comment = []
        i += 1


def comment_text(block):
    out = []
    for l in block:
        l = l.strip()
        l = re.sub(r'^/\*+\s?', '', l)
        l = re.sub(r'\s*\*+/$', '', l)
        l = re.sub(r'^\*\s?', '', l)
        out.append(l)
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return out


def page(name, names, section, comment, group, version):
    r = ['.\\" generated from include/udccp/udccp.h by doc/gen_man3.py',
         '.TH %s 3 "2026" "udccp %s" "udccp manual"' % (name.upper().replace('_', '\\_'), version),
         '.SH NAME',
         '%s \\- %s' % (', '.join(n.replace('_', '\\_') for n in names),
                        roff_text('udccp ' + section)),
         '.SH SYNOPSIS', '.nf', '.B #include <udccp/udccp.h>', '.PP']
    for d in group:
        for l in d:
            r.append(roff_text(l.rstrip()))
    r += ['.fi', '.PP', 'Link with', '.BR "pkg\\-config \\-\\-libs libudccp" .',
          '.SH DESCRIPTION', '.nf']
    text = comment_text(comment) or ['(no description in the header)']
    for l in text:
        r.append(roff_text(l) if l else '')
    r += ['.fi', '.SH SEE ALSO']
    others = [n for n in names if n != name]
    r.append(', '.join('.BR %s (3)' % n for n in others)
             .replace(', .BR', '\n.BR') if others else '')
    r.append('.BR udccp (3)')
    return '\n'.join(x for x in r if x != '') + '\n'


def main():
    if len(sys.argv) != 4:
        sys.exit('usage: gen_man3.py HEADER OUTDIR VERSION')
    header, outdir, version = sys.argv[1:]
    os.makedirs(outdir, exist_ok=True)
    n = 0
    # and the headers of include/udccp/ that udccp.h includes (ccid.h)
    inc = re.findall(r'^#include <udccp/(.+)>', open(header).read(), re.M)
    headers = [header] + [os.path.join(os.path.dirname(header), h)
                          for h in inc]
    for section, comment, group, names in (x for h in headers
                                           for x in parse(h)):
        for name in names:
            text = page(name, names, section, comment, group, version)
            path = os.path.join(outdir, name + '.3')
            old = open(path).read() if os.path.exists(path) else None
            if old != text:
                with open(path, 'w') as f:
                    f.write(text)
            n += 1
    if n == 0:
        sys.exit('gen_man3.py: no functions found in ' + header)


main()
