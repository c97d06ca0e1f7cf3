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
  url = [c.url path];
  if c.octave
    [status, raw] = curl_request(c, method, url, body, accept);
  else
    [status, raw] = matlab_request(c, method, url, body, accept);
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

function [status, raw] = curl_request(c, method, url, body, accept)
  args = {'-sS', '-X', method, '-H', ['Accept: ' accept], '--max-time', num2str(c.timeout)};
  if ~isempty(c.token)
    args = [args, {'-H', ['Authorization: Bearer ' c.token]}];
  end
  bodyfile = '';
  if ~isempty(body)
    bodyfile = [tempname() '.json'];
    f = fopen(bodyfile, 'w');
    fwrite(f, body);
    fclose(f);
    args = [args, {'-H', 'Content-Type: application/json', '--data-binary', ['@' bodyfile]}];
  end
  outfile = tempname();
  args = [args, {'-o', outfile, '-w', '%{http_code}', url}];
  quoted = cellfun(@(a) ['''' strrep(a, '''', '''\''''') ''''], args, 'UniformOutput', false);
  [rc, code] = system(['curl ' strjoin(quoted, ' ')]);
  if ~isempty(bodyfile)
    delete(bodyfile);
  end
  raw = uint8([]);
  if exist(outfile, 'file')
    f = fopen(outfile, 'r');
    raw = fread(f, Inf, 'uint8=>uint8')';
    fclose(f);
    delete(outfile);
  end
  if rc ~= 0
    error('rodd:connection', 'cannot reach %s: %s', url, strtrim(code));
  end
  status = str2double(code);
end

function [status, raw] = matlab_request(c, method, url, body, accept)
  headers = {'Accept', accept};
  if ~isempty(c.token)
    headers(end + 1, :) = {'Authorization', ['Bearer ' c.token]};
  end
  o = weboptions('RequestMethod', lower(method), 'Timeout', c.timeout, 'HeaderFields', headers, ...
                 'ContentType', 'raw', 'MediaType', 'application/json');
  status = 200;
  try
    if isempty(body)
      raw = webread(url, o);
    else
      raw = webwrite(url, body, o);
    end
  catch e
    % webread/webwrite keep the status in the message ("... status 422 ...")
    tok = regexp(e.message, '(\d{3})', 'tokens', 'once');
    if isempty(tok)
      rethrow(e);
    end
    status = str2double(tok{1});
    raw = uint8(e.message);
  end
  raw = uint8(raw(:)');
end
