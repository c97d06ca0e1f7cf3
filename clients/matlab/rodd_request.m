function [out, raw] = rodd_request(c, method, path, body, accept)
%RODD_REQUEST  One request to the daemon: method ('GET', 'POST', 'PATCH', 'PUT', 'DELETE'),
%   path (e.g. '/v1/sessions'), body (a struct, or JSON text, or [] for none). Returns the
%   decoded JSON answer (or [] when empty) and the raw bytes. An error answer raises an
%   error whose identifier is rodd:<slug> (e.g. rodd:invalid-spec) and whose message has the
%   problem's detail and every error's JSON pointer.
  if nargin < 4
    body = [];
  end
  if nargin < 5
    accept = 'application/json';
  end
  if isstruct(body)
    body = jsonencode(body);
  end
  switch c.transport
    case 'socket'
      [status, raw] = socket_request(c, method, path, body, accept);
    case 'curl'
      [status, raw] = curl_request(c, method, [c.url path], body, accept);
    otherwise
      [status, raw] = web_request(c, method, [c.url path], body, accept);
  end
  out = [];
  text = char(raw(:)');
  if status >= 400
    problem = struct('detail', text, 'type', '');
    try
      problem = jsondecode(text);
    catch
    end
    slug = 'error';
    if isfield(problem, 'type') && ~isempty(problem.type)
      slug = regexprep(problem.type, '.*/', '');
    end
    msg = sprintf('%d %s', status, slug);
    if isfield(problem, 'detail')
      msg = sprintf('%s: %s', msg, problem.detail);
    end
    if isfield(problem, 'errors')
      e = problem.errors;
      if iscell(e)
        e = [e{:}];
      end
      for k = 1:numel(e)
        msg = sprintf('%s\n  %s: %s', msg, e(k).path, e(k).message);
      end
    end
    error(['rodd:' slug], '%s', msg);
  end
  if ~isempty(text) && strncmp(accept, 'application/json', 16)
    out = jsondecode(text);
  end
end
